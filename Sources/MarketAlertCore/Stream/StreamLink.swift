import Foundation

/// The state machine's record of one connection.
struct StreamLink: Sendable {
    enum Phase: Sendable, Equatable { case connecting, subscribing, live }

    let id: StreamLinkID
    let openedAt: Date
    var phase: Phase = .connecting
    var connectedAt: Date?
    var liveSince: Date?
    /// Any frame at all (the transport check).
    var lastInbound: Date
    /// Market data only (the freshness check).
    var lastData: Date?
    var lastPing: Date?
    var pendingAcks: Set<String>
    /// Messages waiting for the outbound limit.
    var queue: [StreamOutbound] = []
    var pacer: OutboundPacer?
    /// The keepalive this connection's endpoint asked for (`StreamConnectionEvent.keepalive`); nil: the protocol's.
    var keepalive: StreamKeepalive?

    init(id: StreamLinkID, openedAt: Date, pendingAcks: Set<String>, pacer: OutboundPacer?) {
        self.id = id
        self.openedAt = openedAt
        self.lastInbound = openedAt
        self.pendingAcks = pendingAcks
        self.pacer = pacer
    }

    /// Queues a pong, replacing one not yet sent (only the latest ping needs an answer).
    mutating func queuePong(_ payload: [UInt8]) {
        queue.removeAll { if case .pong = $0 { return true } else { return false } }
        queue.append(.pong(payload: payload))
    }

    /// The earliest instant something about this link falls due.
    func deadline(_ configuration: StreamConnectionConfiguration) -> Date? {
        var earliest: Date?
        let keepalive = self.keepalive ?? configuration.keepalive
        func consider(_ date: Date?) {
            guard let date else { return }
            if earliest.map({ date < $0 }) ?? true { earliest = date }
        }
        switch phase {
        case .connecting:
            consider(openedAt.addingTimeInterval(configuration.connectTimeout.seconds))
        case .subscribing:
            consider(connectedAt?.addingTimeInterval(configuration.ackTimeout.seconds))
            consider(lastInbound.addingTimeInterval(keepalive.window.seconds))
        case .live:
            consider(lastInbound.addingTimeInterval(keepalive.window.seconds))
            consider(lastData?.addingTimeInterval(configuration.staleAfter.seconds))
        }
        if phase != .connecting, keepalive.ping != .none, let since = lastPing ?? connectedAt {
            consider(since.addingTimeInterval(keepalive.interval.seconds))
        }
        if !queue.isEmpty, let pacer {
            consider(pacer.nextSlot(now: .distantPast))
        }
        return earliest
    }
}
