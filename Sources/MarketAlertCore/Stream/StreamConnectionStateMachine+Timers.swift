import Foundation

/// The time-driven half of `StreamConnectionStateMachine`: reconnects when due, the two liveness checks,
/// client pings, renewal before the connection lifetime, and sending what the outbound limit allows.
extension StreamConnectionStateMachine {
    mutating func runTimers(now: Date, random: Double, into actions: inout [StreamConnectionAction]) {
        if primary == nil, let reconnectAt, reconnectAt <= now {
            self.reconnectAt = nil
            primary = open(now: now, into: &actions)
        }
        for slot in 0..<2 {
            guard let link = slot == 0 ? primary : successor else { continue }
            let keepalive = link.keepalive ?? configuration.keepalive
            if let reason = expiry(of: link, now: now) {
                fail(link.id, reason: reason, close: true, now: now, random: random, into: &actions)
                continue
            }
            if link.phase != .connecting, keepalive.ping != .none, let since = link.lastPing ?? link.connectedAt,
               now.timeIntervalSince(since) >= keepalive.interval.seconds {
                update(link.id) { link in
                    link.lastPing = now
                    link.queue.append(.ping)
                }
            }
        }
        if let link = primary, link.phase == .live, successor == nil, let renewAt, renewAt <= now,
           (successorNotBefore ?? .distantPast) <= now {
            successor = open(now: now, into: &actions)
        }
    }

    /// Why `link` must be given up at `now`, if it must.
    func expiry(of link: StreamLink, now: Date) -> String? {
        let quiet = now.timeIntervalSince(link.lastInbound)
        let window = (link.keepalive ?? configuration.keepalive).window
        switch link.phase {
        case .connecting:
            if now.timeIntervalSince(link.openedAt) >= configuration.connectTimeout.seconds {
                return "connect timed out after \(StreamDurationText.describe(configuration.connectTimeout))"
            }
        case .subscribing:
            if let connectedAt = link.connectedAt, now.timeIntervalSince(connectedAt) >= configuration.ackTimeout.seconds {
                let what = configuration.liveOnFirstData ? "no market data" : "\(link.pendingAcks.count) subscription(s) not acknowledged"
                return "\(what) within \(StreamDurationText.describe(configuration.ackTimeout)) of connecting"
            }
            if quiet >= window.seconds { return Self.transportQuiet(window) }
        case .live:
            if quiet >= window.seconds { return Self.transportQuiet(window) }
            if let lastData = link.lastData, now.timeIntervalSince(lastData) >= configuration.staleAfter.seconds {
                return "stale: no market data for \(StreamDurationText.describe(configuration.staleAfter))"
            }
        }
        return nil
    }

    static func transportQuiet(_ window: Duration) -> String {
        "transport silent: no frame, pong or heartbeat for \(StreamDurationText.describe(window))"
    }

    mutating func flush(now: Date, into actions: inout [StreamConnectionAction]) {
        for slot in 0..<2 {
            guard let id = slot == 0 ? primary?.id : successor?.id else { continue }
            update(id) { link in
                guard link.phase != .connecting else { return }
                while !link.queue.isEmpty {
                    if let pacer = link.pacer, !pacer.canSend(now: now) { break }
                    let message = link.queue.removeFirst()
                    link.pacer?.record(now: now)
                    actions.append(.send(link.id, message))
                }
            }
        }
    }
}
