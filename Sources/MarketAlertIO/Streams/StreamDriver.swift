import Foundation
import Logging
import MarketAlertCore
import NIOCore

/// The loop behind `WebSocketStreamSource.run`: one task owns the state machine; connections and timers are
/// child tasks that only report events to it. Frames are decoded where they are read (`StreamIntake`, which
/// owns the market table); the driver hears of those that matter to the machine. Refused and quiet markets:
/// `StreamDriver+Markets`; books rebuilt: `StreamDriver+Books` (the driver is a value its one task owns, so
/// its files share its state).
struct StreamDriver<P: ExchangeStreamProtocol> {
    /// The consumer's: called on this task as updates happen, never waits (it coalesces).
    typealias Emit = @Sendable (StreamUpdate) -> Void

    struct LinkHandle {
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
    var subscription: StreamSubscription
    var machine: StreamConnectionStateMachine
    var links: [StreamLinkID: LinkHandle] = [:]
    private var armed: Date?
    /// Markets the exchange refused: held out of the subscriptions, asked for again after 1 min, doubling to 1 h.
    var retry = StreamMarketRetry()
    /// Freshness per market while the stream is live (a quiet market goes to REST).
    var freshness: StreamMarketFreshness
    /// What REST was last told to poll beside the live stream.
    var restOnly: Set<String> = []
    /// Every watched market is held out: no connection until one is asked for again.
    var paused = false
    /// Market id → its index in the table (the intake's order).
    let indexOf: [String: Int]
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
            goDown(reason, emit: emit)
        }
    }

    /// The stream is down (the machine said so, or every market was refused): counted, logged, freshness
    /// stopped, the consumer told.
    mutating func goDown(_ reason: String, emit: Emit) {
        source.counters.update {
            $0.downs += 1
            $0.lastDownReason = reason
        }
        source.logger?.warning("stream down", metadata: withConnection(["source": "\(source.exchange.rawValue)", "reason": "\(reason)"]))
        freshness.down()
        emit(.down(reason: reason))
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
