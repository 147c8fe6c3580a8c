import Foundation

/// One exchange stream's connection logic, pure: events and `now` in, actions out; no I/O, no clock.
///
/// - Connects, sends the subscriptions (paced by `outboundLimit`), and reports `.live` once every expected
///   ack has arrived (a `complete` ack missing any is a partial ack: an error) or, for exchanges that never
///   ack, on the first market data.
/// - Two checks on a live connection: the transport (any frame within `keepalive.window`; the client pings
///   every `keepalive.interval` where the exchange wants that) and freshness (market data within
///   `staleAfter`; heartbeats do not count). Either failing closes the connection and reconnects.
/// - Reconnects with exponential backoff and jitter (`StreamReconnectPolicy`), reporting `.down` with the
///   reason each time the live stream is lost or an attempt fails.
/// - Before a connection reaches its `lifetime`, or when the server announces a shutdown, opens a
///   replacement and closes the old one only once the replacement is live (make-before-break).
package struct StreamConnectionStateMachine: Sendable {
    package private(set) var configuration: StreamConnectionConfiguration
    var primary: StreamLink?
    var successor: StreamLink?
    var lastID: UInt64 = 0
    var started = false
    var reconnectAt: Date?
    var failures = 0
    var successorFailures = 0
    var successorNotBefore: Date?
    var renewAt: Date?
    /// Paused (`.pause`): no connection, no reconnect, until `.start`.
    var paused = false
    private(set) package var isLive = false

    package init(configuration: StreamConnectionConfiguration) {
        self.configuration = configuration
    }

    /// The connection currently serving the stream (live or being opened).
    package var primaryLink: StreamLinkID? { primary?.id }
    /// A replacement being opened while the primary still serves.
    package var successorLink: StreamLinkID? { successor?.id }
    /// Consecutive failed attempts (0 after a connection stayed live for `stableAfter`).
    package var consecutiveFailures: Int { failures }

    /// Changes what the next connections subscribe to (markets the exchange refused are left out); the
    /// connections already open keep theirs.
    package mutating func updateSubscription(messages: Int, acks: Set<String>) {
        configuration.subscribeMessages = messages
        configuration.expectedAcks = acks
    }

    /// Applies `event` at `now`; `random` (0..<1) spreads backoff and renewal times.
    package mutating func handle(_ event: StreamConnectionEvent, now: Date, random: Double) -> [StreamConnectionAction] {
        var actions: [StreamConnectionAction] = []
        let liveOnFirstData = configuration.liveOnFirstData
        switch event {
        case .start:
            if !started || paused {
                started = true
                paused = false
                if primary == nil { primary = open(now: now, into: &actions) }
            }
        case .connected(let id):
            let subscriptions = (0..<configuration.subscribeMessages).map(StreamOutbound.subscribe)
            let expected = configuration.expectedAcks
            update(id) { link in
                guard link.phase == .connecting else { return }
                link.phase = .subscribing
                link.connectedAt = now
                link.lastInbound = now
                // What is subscribed now (markets refused while it was connecting are left out).
                link.pendingAcks = expected
                link.queue.append(contentsOf: subscriptions)
            }
            if configuration.expectedAcks.isEmpty, !configuration.liveOnFirstData { goLive(id, now: now, random: random, into: &actions) }
        case .keepalive(let id, let keepalive):
            update(id) { $0.keepalive = keepalive }
        case .connectFailed(let id, let reason):
            fail(id, reason: "connect failed: \(reason)", close: false, now: now, random: random, into: &actions)
        case .acked(let id, let keys, let complete):
            var missing: Set<String> = []
            var ready = false
            update(id) { link in
                link.lastInbound = now
                link.pendingAcks.subtract(keys)
                missing = link.pendingAcks
                ready = link.phase == .subscribing && missing.isEmpty && !liveOnFirstData
            }
            if complete, !missing.isEmpty {
                let names = missing.sorted().prefix(5).joined(separator: ", ")
                fail(id, reason: "partial subscription ack: \(missing.count) not acknowledged (\(names))", close: true, now: now, random: random, into: &actions)
            } else if ready {
                goLive(id, now: now, random: random, into: &actions)
            }
        case .rejected(let id, let reason):
            fail(id, reason: "exchange error: \(reason)", close: true, now: now, random: random, into: &actions)
        case .data(let id):
            var ready = false
            update(id) { link in
                link.lastInbound = now
                link.lastData = now
                ready = link.phase == .subscribing && liveOnFirstData && link.pendingAcks.isEmpty
            }
            if ready { goLive(id, now: now, random: random, into: &actions) }
        case .heartbeat(let id):
            update(id) { $0.lastInbound = now }
        case .serverPing(let id, let payload):
            update(id) { link in
                link.lastInbound = now
                link.queuePong(payload)
            }
        case .shutdownNotice(let id):
            update(id) { $0.lastInbound = now }
            if primary?.id == id, successor == nil { successor = open(now: now, into: &actions) }
        case .closed(let id, let reason):
            fail(id, reason: reason, close: false, now: now, random: random, into: &actions)
        case .resubscribe(let id, let drop, let messages, let acks):
            var ready = false
            update(id) { link in
                // A connection still connecting subscribes with the configuration of the moment it connects.
                guard link.phase != .connecting else { return }
                link.lastInbound = now
                link.pendingAcks.subtract(drop)
                if link.phase == .subscribing { link.pendingAcks.formUnion(acks) }
                link.queue.append(contentsOf: messages.map(StreamOutbound.message))
                ready = link.phase == .subscribing && link.pendingAcks.isEmpty && !liveOnFirstData
            }
            if ready { goLive(id, now: now, random: random, into: &actions) }
        case .pause:
            paused = true
            for link in [primary, successor].compactMap({ $0 }) { actions.append(.close(link.id, reason: "nothing left to stream")) }
            primary = nil
            successor = nil
            reconnectAt = nil
            renewAt = nil
            successorNotBefore = nil
            isLive = false
        case .tick:
            break
        }
        runTimers(now: now, random: random, into: &actions)
        flush(now: now, into: &actions)
        return actions
    }

    /// When the runner must deliver `.tick` next (nil: nothing scheduled).
    package var nextDeadline: Date? {
        var earliest: Date?
        func consider(_ date: Date?) {
            guard let date else { return }
            if earliest.map({ date < $0 }) ?? true { earliest = date }
        }
        if primary == nil { consider(reconnectAt) }
        consider(primary?.deadline(configuration))
        consider(successor?.deadline(configuration))
        if let primary, primary.phase == .live, successor == nil, let renewAt {
            consider(max(renewAt, successorNotBefore ?? .distantPast))
        }
        return earliest
    }

    // MARK: Transitions

    mutating func open(now: Date, into actions: inout [StreamConnectionAction]) -> StreamLink {
        lastID += 1
        let link = StreamLink(
            id: StreamLinkID(lastID), openedAt: now, pendingAcks: configuration.expectedAcks, pacer: configuration.outboundLimit)
        actions.append(.connect(link.id))
        return link
    }

    mutating func update(_ id: StreamLinkID, _ body: (inout StreamLink) -> Void) {
        if primary?.id == id {
            body(&primary!)  // checked just above
        } else if successor?.id == id {
            body(&successor!)  // checked just above
        }
    }

    private mutating func goLive(_ id: StreamLinkID, now: Date, random: Double, into actions: inout [StreamConnectionAction]) {
        update(id) { link in
            guard link.phase != .live else { return }
            link.phase = .live
            link.liveSince = now
            // Freshness is measured from the moment the subscriptions took effect.
            link.lastData = max(link.lastData ?? now, now)
        }
        if successor?.id == id, let replacement = successor {
            if let old = primary { actions.append(.close(old.id, reason: "replaced by a fresh connection")) }
            primary = replacement
            successor = nil
            successorFailures = 0
            successorNotBefore = nil
        }
        guard primary?.id == id, let link = primary else { return }
        renewAt = configuration.lifetime.map { lifetime in
            let spread = configuration.renewBefore.seconds * 0.25 * random
            return link.openedAt.addingTimeInterval(lifetime.seconds - configuration.renewBefore.seconds - spread)
        }
        if !isLive {
            isLive = true
            actions.append(.live)
        }
    }

    mutating func fail(
        _ id: StreamLinkID, reason: String, close: Bool, now: Date, random: Double, into actions: inout [StreamConnectionAction]
    ) {
        if successor?.id == id {
            successor = nil
            successorFailures += 1
            let delay = configuration.reconnect.delay(afterFailures: successorFailures, random: random)
            successorNotBefore = now.addingTimeInterval(delay.seconds)
            if close { actions.append(.close(id, reason: reason)) }
            return
        }
        guard let old = primary, old.id == id else { return }
        primary = nil
        if close { actions.append(.close(id, reason: reason)) }
        if let replacement = successor, replacement.phase == .live {
            primary = replacement
            successor = nil
            return
        }
        failures = configuration.reconnect.failures(after: failures, liveSince: old.liveSince, now: now)
        isLive = false
        renewAt = nil
        if let replacement = successor {
            // A replacement is already on its way: it becomes the primary; no second attempt.
            primary = replacement
            successor = nil
            actions.append(.down(reason: "\(reason); waiting for the replacement connection"))
            return
        }
        let delay = configuration.reconnect.delay(afterFailures: failures, random: random)
        reconnectAt = now.addingTimeInterval(delay.seconds)
        actions.append(.down(reason: "\(reason); reconnecting in \(StreamDurationText.describe(delay))"))
    }
}
