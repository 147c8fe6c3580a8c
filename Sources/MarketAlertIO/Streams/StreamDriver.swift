import Foundation
import Logging
import MarketAlertCore
import NIOCore

/// The loop behind `WebSocketStreamSource.run`: one task owns the state machine; connections and timers are
/// child tasks that only report events to it. Frames are decoded where they are read (`StreamIntake`, which
/// owns the market table); the driver hears of those that matter to the machine.
struct StreamDriver<P: ExchangeStreamProtocol> {
    /// The consumer's: called on this task as updates happen, never waits (it coalesces).
    typealias Emit = @Sendable (StreamUpdate) -> Void

    private struct LinkHandle {
        let commands: AsyncStream<WebSocketLinkCommand>.Continuation
        let holder: WebSocketChannelHolder
        var connected = false
        /// The subscription messages as of the handshake (`.subscribe(i)` sends `messages[i]`).
        var messages: [String] = []
        /// The markets sent in the same message as each market (for exchanges that refuse whole messages).
        var partOf: [String: [String]] = [:]

        mutating func record(_ parts: [[String]]) {
            for part in parts { for market in part { partOf[market] = part } }
        }
    }

    let source: WebSocketStreamSource<P>
    let intake: StreamIntake
    /// Every watched market id, as subscribed at first.
    let markets: [String]
    private(set) var subscription: StreamSubscription
    var machine: StreamConnectionStateMachine
    private var links: [StreamLinkID: LinkHandle] = [:]
    private var armed: Date?
    /// Markets the exchange refused: held out of the subscriptions, asked for again after 1 min, doubling to 1 h.
    private var retry = StreamMarketRetry()
    /// Freshness per market while the stream is live (a quiet market goes to REST).
    private var freshness: StreamMarketFreshness
    /// What REST was last told to poll beside the live stream.
    private var restOnly: Set<String> = []
    /// Every watched market is held out: no connection until one is asked for again.
    private var paused = false
    /// Market id → its index in the table (the intake's order).
    private let indexOf: [String: Int]
    /// What the timer's sleeps are named on the clock.
    private let timerLabel: ClockLabel
    /// Which of the exchange's connections this is (`2/12`), when its markets are spread over several.
    private let connection: String?

    init(
        source: WebSocketStreamSource<P>, intake: StreamIntake, markets: [String], subscription: StreamSubscription,
        machine: StreamConnectionStateMachine, connection: String? = nil
    ) {
        self.source = source
        self.intake = intake
        self.markets = markets
        self.subscription = subscription
        self.machine = machine
        self.freshness = StreamMarketFreshness(staleAfter: source.staleAfter)
        var indexOf: [String: Int] = [:]
        for (index, market) in markets.enumerated() { indexOf[market] = index }
        self.indexOf = indexOf
        self.timerLabel = .stream(source.exchange.rawValue)
        self.connection = connection
    }

    mutating func run(emit: @escaping @Sendable (StreamUpdate) -> Void) async {
        // Connections' reports and timer ticks, in arrival order.
        let events = AsyncQueue<StreamDriverEvent>()
        // A discarding group: its children (a timer sleep per deadline, a task per connection and per book
        // snapshot) are never awaited one by one, and a plain `TaskGroup` keeps every finished child until
        // it is: memory grew with every tick and every reconnect for as long as the stream ran.
        await withDiscardingTaskGroup { group in
            step(.start, group: &group, sink: events, emit: emit)
            for await event in events {
                switch event {
                case .tick(let deadline):
                    if deadline == armed { armed = nil }
                    step(.tick, group: &group, sink: events, emit: emit)
                case .link(let id, let linkEvent):
                    if let machineEvent = translate(id, linkEvent) {
                        step(machineEvent, group: &group, sink: events, emit: emit)
                    }
                case .frame(let id, let frame):
                    if let machineEvent = translate(id, frame, emit: emit) {
                        step(machineEvent, group: &group, sink: events, emit: emit)
                    }
                case .bookSnapshot(let request, let body):
                    if !intake.seedBook(body, at: request.index) {
                        source.logger?.warning("stream: a book snapshot was not usable; fetching another", metadata: [
                            "source": "\(source.exchange.rawValue)", "market": "\(request.market)"])
                        fetchBook(request, after: .seconds(1), group: &group, sink: events)
                    }
                    step(.tick, group: &group, sink: events, emit: emit)
                }
            }
            for handle in links.values {
                handle.commands.finish()
                handle.holder.close()
            }
            links.removeAll()
            events.finish()
            group.cancelAll()
        }
    }

    /// Feeds the machine, carries out its actions, re-arms the timer.
    private mutating func step(
        _ event: StreamConnectionEvent, group: inout DiscardingTaskGroup, sink: AsyncQueue<StreamDriverEvent>,
        emit: Emit
    ) {
        for activity in intake.takeActivity() {
            machine.noteActivity(activity.id, inbound: activity.inbound, data: activity.data)
        }
        let now = source.clock.now()
        let resyncs = rebuildBooks(group: &group, sink: sink)
        for event in [event] + retryDue(now: now) + resyncs {
            let actions = machine.handle(event, now: now, random: source.random())
            for action in actions { perform(action, group: &group, sink: sink, emit: emit) }
        }
        let freshUntil = checkFreshness(now: now)
        publishRestOnly(emit: emit)
        intake.accept(machine.openLinks)
        let deadlines = [machine.nextDeadline, retry.nextDeadline, freshUntil].compactMap { $0 }
        guard let deadline = deadlines.min() else { return }
        if let armed, armed <= deadline { return }
        armed = deadline
        let clock = source.clock
        let label = timerLabel
        group.addTask {
            do { try await clock.sleep(until: deadline, label: label) } catch { return }
            sink.yield(.tick(deadline))
        }
    }

    private mutating func perform(
        _ action: StreamConnectionAction, group: inout DiscardingTaskGroup, sink: AsyncQueue<StreamDriverEvent>,
        emit: Emit
    ) {
        let exchange = source.exchange.rawValue
        switch action {
        case .connect(let id):
            let (commands, continuation) = AsyncStream.makeStream(of: WebSocketLinkCommand.self)
            let holder = WebSocketChannelHolder()
            links[id] = LinkHandle(commands: continuation, holder: holder)
            source.counters.update { $0.connects += 1 }
            source.logger?.debug("stream connecting", metadata: ["source": "\(exchange)", "link": "\(id)", "url": "\(source.url)"])
            let clock = source.clock
            let link = WebSocketLink(
                url: source.url, connector: source.connector, connectTimeout: source.connectTimeout, now: { clock.now() },
                endpoint: source.endpoint)
            let intake = intake
            group.addTask {
                await link.run(commands: commands, holder: holder) { sink.yield(.link(id, $0)) } message: { buffer, compressed in
                    if let frame = intake.take(buffer, compressed: compressed, from: id) { sink.yield(.frame(id, frame)) }
                } readComplete: {
                    intake.flush()
                }
            }
        case .send(let id, let message):
            guard let handle = links[id] else { return }
            switch message {
            case .subscribe(let index):
                guard handle.messages.indices.contains(index) else { return }
                handle.commands.yield(.text(handle.messages[index]))
            case .message(let text):
                handle.commands.yield(.text(text))
            case .ping:
                source.counters.update { $0.pingsSent += 1 }
                let keepalive = source.protocolDescription.keepalive
                handle.commands.yield(keepalive.ping == .protocolFrame ? .ping : .text(source.protocolDescription.pingMessage))
            case .pong(let payload):
                handle.commands.yield(.pong(ByteBuffer(bytes: payload)))
            }
        case .close(let id, let reason):
            guard let handle = links.removeValue(forKey: id) else { return }
            source.logger?.debug("stream closing a connection", metadata: ["source": "\(exchange)", "link": "\(id)", "reason": "\(reason)"])
            if handle.connected { handle.commands.yield(.close) } else { handle.holder.close() }
            handle.commands.finish()
        case .live:
            source.counters.update { $0.lives += 1 }
            source.logger?.info("stream live", metadata: withConnection(["source": "\(exchange)", "markets": "\(markets.count - retry.held.count)"]))
            freshness.live(now: source.clock.now())
            emit(.live)
        case .down(let reason):
            source.counters.update {
                $0.downs += 1
                $0.lastDownReason = reason
            }
            source.logger?.warning("stream down", metadata: withConnection(["source": "\(exchange)", "reason": "\(reason)"]))
            freshness.down()
            emit(.down(reason: reason))
        }
    }

    /// Turns a connection's report into a machine event (decoding messages on the way).
    private mutating func translate(_ id: StreamLinkID, _ event: WebSocketLinkEvent) -> StreamConnectionEvent? {
        switch event {
        case .connected:
            // The machine queues `.subscribe(0..<n)` of the subscription as it is now, rendered afresh for this
            // connection: an exchange may stamp its requests with the time (Gate refuses one 60 s old).
            subscription = source.protocolDescription.subscription(for: markets.filter { !retry.held.contains($0) })
            links[id]?.connected = true
            links[id]?.messages = subscription.messages
            links[id]?.record(subscription.parts)
            return .connected(id)
        case .keepalive(let keepalive):
            return .keepalive(id, keepalive)
        case .connectFailed(let reason):
            links.removeValue(forKey: id)
            return .connectFailed(id, reason: reason)
        case .closed(let reason):
            links.removeValue(forKey: id)
            return .closed(id, reason: reason)
        case .ping(let payload):
            source.counters.update { $0.serverPings += 1 }
            return .serverPing(id, payload: Array(payload.readableBytesView))
        case .pong:
            source.counters.update { $0.heartbeats += 1 }
            return .heartbeat(id)
        }
    }

    /// The exchange refused `named` on link `id`: they are held out of the subscriptions (asked for again
    /// later) and REST covers them; the connection and every other market stay. Returns what the machine
    /// must hear: the acks that will not come and what to ask for again on the connection, or `.pause` when
    /// nothing is left to stream. A refusal that names no watched market is an error of the connection.
    private mutating func refuse(_ named: [String], on id: StreamLinkID, reason: String, emit: Emit) -> StreamConnectionEvent {
        let refused = Set(named).filter { indexOf[$0] != nil }
        guard !refused.isEmpty else { return .rejected(id, reason: reason) }
        let now = source.clock.now()
        let exchange = source.exchange.rawValue
        let held = retry.held
        let newly = refused.subtracting(held).sorted()
        var retryAt: Date?
        for market in newly { retryAt = retry.refuse(market, now: now) }
        if !newly.isEmpty {
            source.logger?.warning("stream: the exchange refused markets; REST keeps them and the stream asks again later", metadata: [
                "source": "\(exchange)", "markets": "\(newly.joined(separator: ","))", "reason": "\(reason)",
                "retry_in": "\(retryAt.map { StreamDurationText.describe(.seconds(max(0, $0.timeIntervalSince(now).rounded()))) } ?? "-")"])
        }
        // Told before anything else, so the poller covers them by the time the stream is live again.
        publishRestOnly(emit: emit)
        let nowHeld = retry.held
        let remaining = markets.filter { !nowHeld.contains($0) }
        guard !remaining.isEmpty else {
            paused = true
            let wait = retry.nextDeadline.map { StreamDurationText.describe(.seconds(max(0, $0.timeIntervalSince(now).rounded()))) } ?? "a while"
            let down = "exchange error: \(reason); every watched market was refused, the stream asks again in \(wait) (REST keeps them)"
            source.counters.update {
                $0.downs += 1
                $0.lastDownReason = down
            }
            source.logger?.warning("stream down", metadata: withConnection(["source": "\(exchange)", "reason": "\(down)"]))
            freshness.down()
            emit(.down(reason: down))
            return .pause
        }
        subscription = source.protocolDescription.subscription(for: remaining)
        machine.updateSubscription(messages: subscription.messages.count, acks: subscription.acks)
        // What the refusal cancels on this connection, and what it must ask for again.
        let description = source.protocolDescription
        guard subscription.refusesWholeMessage, var handle = links[id] else {
            return .resubscribe(id, drop: description.subscription(for: refused.sorted()).acks, messages: [], acks: [])
        }
        var drop: Set<String> = []
        var again: Set<String> = []
        for market in refused.sorted() {
            let part = handle.partOf[market] ?? [market]
            drop.formUnion(description.subscription(for: part).acks)
            again.formUnion(part)
            for other in part { handle.partOf[other] = nil }
        }
        again.subtract(nowHeld)
        guard !again.isEmpty else {
            links[id] = handle
            return .resubscribe(id, drop: drop, messages: [], acks: [])
        }
        let resend = description.subscription(for: markets.filter(again.contains))
        handle.record(resend.parts)
        links[id] = handle
        return .resubscribe(id, drop: drop, messages: resend.messages, acks: resend.acks)
    }

    /// Books the decoder threw away (or never had): each is rebuilt the exchange's way (`bookResync`) and a
    /// resync is counted by reason. Returns what the machine must hear (a replacement connection, or a
    /// market's book asked for again on the serving one).
    private mutating func rebuildBooks(group: inout DiscardingTaskGroup, sink: AsyncQueue<StreamDriverEvent>) -> [StreamConnectionEvent] {
        let requests = intake.takeBookRequests()
        guard !requests.isEmpty else { return [] }
        let exchange = source.exchange
        for request in requests {
            guard let reason = request.reason else { continue }
            FetchMetrics.bookResync(exchange, reason: reason)
            source.logger?.info("stream: an order book is rebuilt from a fresh snapshot", metadata: [
                "source": "\(exchange.rawValue)", "market": "\(request.market)", "reason": "\(reason.rawValue)"])
        }
        switch source.protocolDescription.bookResync {
        case .reconnect:
            // Books never seeded wait for the subscriptions' own snapshots.
            for request in requests { intake.forgetBookRequest(request.index) }
            guard requests.contains(where: { $0.reason != nil }), let primary = machine.primaryLink, machine.successorLink == nil
            else { return [] }
            return [.shutdownNotice(primary)]
        case .resubscribe(let messages):
            for request in requests { intake.forgetBookRequest(request.index) }
            guard let primary = machine.primaryLink, links[primary]?.connected == true else { return [] }
            let again = requests.filter { $0.reason != nil }.flatMap { messages($0.market) }
            return again.isEmpty ? [] : [.resubscribe(primary, drop: [], messages: again, acks: [])]
        case .restSnapshot:
            for request in requests { fetchBook(request, after: nil, group: &group, sink: sink) }
            return []
        }
    }

    /// GETs a REST snapshot of `request`'s book (after `delay`, if any), retrying with backoff (1 s doubling
    /// to 1 min) while the exchange does not answer; the body comes back as `.bookSnapshot`.
    private func fetchBook(_ request: BookSnapshotRequest, after delay: Duration?, group: inout DiscardingTaskGroup, sink: AsyncQueue<StreamDriverEvent>) {
        guard case .restSnapshot(let path) = source.protocolDescription.bookResync else { return }
        var text = source.restBaseURL?.absoluteString ?? ""
        while text.hasSuffix("/") { text.removeLast() }
        guard !text.isEmpty, let url = URL(string: text + path(request.market)) else {
            // A source made without the exchange's REST URL (not the daemon's): the book stays unusable.
            source.logger?.warning("stream: no REST URL to fetch a book snapshot from; the book stays unusable", metadata: [
                "source": "\(source.exchange.rawValue)", "market": "\(request.market)"])
            return
        }
        let fetcher = source.bookFetcher
        let clock = source.clock
        let logger = source.logger
        let exchange = source.exchange.rawValue
        let timeout = source.connectTimeout
        let label = ClockLabel("book snapshot \(exchange)")
        group.addTask {
            var wait = delay
            var failures = 0
            while true {
                if let wait {
                    do { try await clock.sleep(until: clock.now().addingTimeInterval(wait.seconds), label: label) } catch { return }
                }
                do {
                    let answer = try await fetcher.get(url, source: exchange, timeout: timeout)
                    sink.yield(.bookSnapshot(request, answer.body))
                    return
                } catch {
                    failures += 1
                    logger?.warning("stream: a book snapshot failed; retrying", metadata: [
                        "source": "\(exchange)", "market": "\(request.market)", "error": "\(error)"])
                    wait = .seconds(min(60, 1 << min(failures - 1, 6)))
                }
                if Task.isCancelled { return }
            }
        }
    }

    /// Markets whose wait after a refusal is over are asked for again: on the connection serving now, else
    /// by the next one (reopened at once when the stream had paused).
    private mutating func retryDue(now: Date) -> [StreamConnectionEvent] {
        let due = retry.takeDue(now: now)
        guard !due.isEmpty else { return [] }
        source.logger?.info("stream: asking again for markets the exchange refused", metadata: [
            "source": "\(source.exchange.rawValue)", "markets": "\(due.joined(separator: ","))"])
        let held = retry.held
        subscription = source.protocolDescription.subscription(for: markets.filter { !held.contains($0) })
        machine.updateSubscription(messages: subscription.messages.count, acks: subscription.acks)
        if paused {
            paused = false
            return [.start]
        }
        guard let primary = machine.primaryLink, var handle = links[primary], handle.connected else { return [] }
        let again = source.protocolDescription.subscription(for: due)
        handle.record(again.parts)
        links[primary] = handle
        return [.resubscribe(primary, drop: [], messages: again.messages, acks: [])]
    }

    /// Per-market freshness on the live stream (markets asked for again count as streaming once their data
    /// arrives). Returns when the next market would become stale.
    private mutating func checkFreshness(now: Date) -> Date? {
        let retrying = retry.retrying
        guard freshness.liveSince != nil || !retrying.isEmpty else { return nil }
        let lastData = intake.receivedTimes()
        for (market, since) in retrying {
            if let index = indexOf[market], lastData[index] >= since { retry.streamed(market) }
        }
        guard freshness.liveSince != nil else { return nil }
        let held = retry.held
        let watched = markets.map { !held.contains($0) }
        let (stale, recovered) = freshness.check(now: now, lastData: lastData, watched: watched)
        let exchange = source.exchange
        for _ in stale { FetchMetrics.rejectedQuotes(exchange, reason: "stale") }
        if !stale.isEmpty {
            // One line per check, not one per market: a whole-market rule can find hundreds quiet at once.
            source.logger?.warning("stream: markets are quiet on the live stream; REST polls them until their data returns", metadata: [
                "source": "\(exchange.rawValue)", "markets": "\(stale.map { markets[$0] }.joined(separator: ","))",
                "count": "\(stale.count)", "stale_after": "\(StreamDurationText.describe(source.staleAfter))"])
        }
        if !recovered.isEmpty {
            source.logger?.info("stream: quiet markets send again; REST leaves them", metadata: [
                "source": "\(exchange.rawValue)", "markets": "\(recovered.map { markets[$0] }.joined(separator: ","))"])
        }
        return freshness.nextDeadline(lastData: lastData, watched: watched)
    }

    /// Tells REST which markets the live stream does not carry (refused, asked for again, or quiet), when that changed.
    private mutating func publishRestOnly(emit: Emit) {
        var current = retry.notStreaming
        for index in freshness.stale.keys { current.insert(markets[index]) }
        guard current != restOnly else { return }
        restOnly = current
        emit(.restOnly(intake.pairs(of: current)))
    }

    /// Turns a frame the intake passed on into a machine event (leaving refused markets out on the way).
    private mutating func translate(_ id: StreamLinkID, _ frame: StreamFrame, emit: Emit) -> StreamConnectionEvent? {
        switch frame {
        case .data:
            return .data(id)
        case .acked(let keys, let complete):
            return .acked(id, keys: keys, complete: complete)
        case .rejected(let reason, let markets):
            return refuse(markets, on: id, reason: reason, emit: emit)
        case .shutdownNotice:
            return .shutdownNotice(id)
        case .reply(let text):
            // The server's keepalive: answered at once on its connection, and the transport is alive.
            links[id]?.commands.yield(.text(text))
            return .heartbeat(id)
        case .heartbeat, .ignored, .unwatched, .dropped:
            // The transport is alive; the market data is not (yet) shown fresh.
            return .heartbeat(id)
        }
    }
}

extension StreamDriver {
    /// `metadata` with the connection named (`connection: 2/12`) when the exchange's markets are spread
    /// over several: "stream down" alone would not say which of them went down.
    func withConnection(_ metadata: Logger.Metadata) -> Logger.Metadata {
        guard let connection else { return metadata }
        var named = metadata
        named["connection"] = "\(connection)"
        return named
    }
}

extension ClockLabel {
    /// A stream driver's timer (keepalive, reconnect backoff, staleness, market retry) for `exchange`.
    package static func stream(_ exchange: String) -> ClockLabel { ClockLabel("stream \(exchange)") }
}
