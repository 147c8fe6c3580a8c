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
    }

    let source: WebSocketStreamSource<P>
    let intake: StreamIntake
    /// Every watched market id, as subscribed at first.
    let markets: [String]
    private(set) var subscription: StreamSubscription
    var machine: StreamConnectionStateMachine
    private var links: [StreamLinkID: LinkHandle] = [:]
    private var armed: Date?
    /// Markets the exchange said do not exist: left out of later subscriptions (REST keeps them).
    private var refused: Set<String> = []
    /// Every watched market was refused: nothing left to stream; the driver only waits to be cancelled.
    private var parked = false

    init(
        source: WebSocketStreamSource<P>, intake: StreamIntake, markets: [String], subscription: StreamSubscription,
        machine: StreamConnectionStateMachine
    ) {
        self.source = source
        self.intake = intake
        self.markets = markets
        self.subscription = subscription
        self.machine = machine
    }

    mutating func run(emit: @escaping @Sendable (StreamUpdate) -> Void) async {
        // Connections' reports and timer ticks, in arrival order.
        let events = AsyncQueue<StreamDriverEvent>()
        await withTaskGroup(of: Void.self) { group in
            step(.start, group: &group, sink: events, emit: emit)
            for await event in events {
                if parked { continue }
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
        _ event: StreamConnectionEvent, group: inout TaskGroup<Void>, sink: AsyncQueue<StreamDriverEvent>,
        emit: Emit
    ) {
        for activity in intake.takeActivity() {
            machine.noteActivity(activity.id, inbound: activity.inbound, data: activity.data)
        }
        let actions = machine.handle(event, now: source.clock.now(), random: source.random())
        for action in actions { perform(action, group: &group, sink: sink, emit: emit) }
        intake.accept(machine.openLinks)
        guard let deadline = machine.nextDeadline else { return }
        if let armed, armed <= deadline { return }
        armed = deadline
        let clock = source.clock
        group.addTask {
            do { try await clock.sleep(until: deadline) } catch { return }
            sink.yield(.tick(deadline))
        }
    }

    private mutating func perform(
        _ action: StreamConnectionAction, group: inout TaskGroup<Void>, sink: AsyncQueue<StreamDriverEvent>,
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
            let link = WebSocketLink(url: source.url, connector: source.connector, connectTimeout: source.connectTimeout)
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
                guard subscription.messages.indices.contains(index) else { return }
                handle.commands.yield(.text(subscription.messages[index]))
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
            source.logger?.info("stream live", metadata: ["source": "\(exchange)", "markets": "\(markets.count)"])
            emit(.live)
        case .down(let reason):
            source.counters.update {
                $0.downs += 1
                $0.lastDownReason = reason
            }
            source.logger?.warning("stream down", metadata: ["source": "\(exchange)", "reason": "\(reason)"])
            emit(.down(reason: reason))
        }
    }

    /// Turns a connection's report into a machine event (decoding messages on the way).
    private mutating func translate(_ id: StreamLinkID, _ event: WebSocketLinkEvent) -> StreamConnectionEvent? {
        switch event {
        case .connected:
            links[id]?.connected = true
            return .connected(id)
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

    /// Leaves the watched markets among `markets` out of the next subscriptions.
    private mutating func refuse(_ markets: [String], reason: String, emit: Emit) {
        let watched = Set(self.markets)
        let newlyRefused = Set(markets).intersection(watched).subtracting(refused)
        guard !newlyRefused.isEmpty else { return }
        refused.formUnion(newlyRefused)
        let exchange = source.exchange.rawValue
        source.logger?.warning("stream: the exchange refused markets; REST keeps them", metadata: [
            "source": "\(exchange)", "markets": "\(newlyRefused.sorted().joined(separator: ","))", "reason": "\(reason)"])
        // Told before anything else, so the poller covers them by the time the stream is live again.
        emit(.restOnly(intake.pairs(of: refused)))
        let remaining = self.markets.filter { !refused.contains($0) }
        guard !remaining.isEmpty else {
            parked = true
            for handle in links.values {
                handle.commands.finish()
                handle.holder.close()
            }
            links.removeAll()
            let down = "exchange error: \(reason); every watched market was refused, the stream stops (REST keeps them)"
            source.counters.update {
                $0.downs += 1
                $0.lastDownReason = down
            }
            emit(.down(reason: down))
            return
        }
        subscription = source.protocolDescription.subscription(for: remaining)
        machine.updateSubscription(messages: subscription.messages.count, acks: subscription.acks)
    }

    /// Turns a frame the intake passed on into a machine event (leaving refused markets out on the way).
    private mutating func translate(_ id: StreamLinkID, _ frame: StreamFrame, emit: Emit) -> StreamConnectionEvent? {
        switch frame {
        case .data:
            return .data(id)
        case .acked(let keys, let complete):
            return .acked(id, keys: keys, complete: complete)
        case .rejected(let reason, let markets):
            refuse(markets, reason: reason, emit: emit)
            return parked ? nil : .rejected(id, reason: reason)
        case .shutdownNotice:
            return .shutdownNotice(id)
        case .heartbeat, .ignored, .unwatched, .dropped:
            // The transport is alive; the market data is not (yet) shown fresh.
            return .heartbeat(id)
        }
    }
}
