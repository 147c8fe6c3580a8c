import Foundation
@testable import MarketAlertCore

/// Drives a `StreamConnectionStateMachine` on virtual time: `send` delivers an event at the current instant,
/// `run(for:)` moves time forward delivering `.tick` at every deadline the machine asks for, and every
/// action is logged with the instant it happened.
struct StreamMachineHarness {
    var machine: StreamConnectionStateMachine
    var now: Date
    var random: Double
    private(set) var log: [(at: Date, action: StreamConnectionAction)] = []
    let start: Date

    init(_ configuration: StreamConnectionConfiguration, random: Double = 0.5) {
        machine = StreamConnectionStateMachine(configuration: configuration)
        start = Date(timeIntervalSince1970: 1_750_000_000)
        now = start
        self.random = random
    }

    @discardableResult
    mutating func send(_ event: StreamConnectionEvent) -> [StreamConnectionAction] {
        let actions = machine.handle(event, now: now, random: random)
        for action in actions { log.append((now, action)) }
        return actions
    }

    /// Advances virtual time by `duration`, ticking at each deadline on the way (and never more than
    /// 100 000 times: a machine that keeps asking for the present instant is a bug the test reports).
    @discardableResult
    mutating func run(for duration: Duration) -> [StreamConnectionAction] {
        let target = now.addingTimeInterval(duration.seconds)
        var actions: [StreamConnectionAction] = []
        var ticks = 0
        while let deadline = machine.nextDeadline, deadline <= target, ticks < 100_000 {
            now = max(now, deadline)
            actions += send(.tick)
            ticks += 1
        }
        precondition(ticks < 100_000, "the state machine asked for a tick at the same instant forever")
        now = target
        return actions
    }

    /// Seconds since the harness started.
    func elapsed(_ date: Date) -> Double { date.timeIntervalSince(start) }

    var seconds: Double { elapsed(now) }

    /// Every action so far matching `predicate`, with its time in seconds since start.
    func times(_ predicate: (StreamConnectionAction) -> Bool) -> [Double] {
        log.filter { predicate($0.action) }.map { elapsed($0.at) }
    }

    var connects: [StreamLinkID] { log.compactMap { if case .connect(let id) = $0.action { return id } else { return nil } } }
    var lastConnect: StreamLinkID { connects.last ?? StreamLinkID(0) }
    var downs: [String] { log.compactMap { if case .down(let reason) = $0.action { return reason } else { return nil } } }
    var lives: Int { log.filter { $0.action == .live }.count }

    func sends(_ id: StreamLinkID) -> [StreamOutbound] {
        log.compactMap { if case .send(id, let message) = $0.action { return message } else { return nil } }
    }

    func closes(_ id: StreamLinkID) -> [String] {
        log.compactMap { if case .close(id, let reason) = $0.action { return reason } else { return nil } }
    }

    /// Connect, handshake and ack everything on the newest link: the stream is live.
    mutating func goLive() -> StreamLinkID {
        let id = lastConnect
        send(.connected(id))
        send(.acked(id, keys: Array(machine.configuration.expectedAcks), complete: false))
        return id
    }

    static func configuration(
        keepalive: StreamKeepalive = .serverDriven(window: .seconds(60)), staleAfter: Duration = .seconds(30),
        lifetime: Duration? = nil, limit: OutboundPacer? = nil, messages: Int = 1, acks: Set<String> = ["id:1"],
        liveOnFirstData: Bool = false, jitter: Double = 0
    ) -> StreamConnectionConfiguration {
        StreamConnectionConfiguration(
            keepalive: keepalive, staleAfter: staleAfter,
            reconnect: StreamReconnectPolicy(backoff: Backoff(base: .seconds(1), maximum: .seconds(60), jitter: jitter)),
            lifetime: lifetime, outboundLimit: limit, subscribeMessages: messages, expectedAcks: acks,
            liveOnFirstData: liveOnFirstData)
    }
}

extension StreamMachineHarness {
    /// Ticks deadline by deadline until the machine opens a new connection.
    mutating func runUntilConnect() {
        let before = connects.count
        var ticks = 0
        while connects.count == before, let deadline = machine.nextDeadline, ticks < 10_000 {
            now = max(now, deadline)
            send(.tick)
            ticks += 1
        }
    }
}
