import Foundation

/// The leadership of one instance in an HA group, as a pure state machine on its own clock. The shell
/// (`LeaseKeeper` in MarketAlertIO) runs the queries it asks for and reports their outcomes; the database
/// judges expiry by its own `now()`, this machine judges when to stop believing it leads.
///
/// Safety: a lease granted by a query sent at `t` (local clock) expires in the database no earlier than
/// `t + lease` (the database adds `lease` to its clock when it executes the query, after `t`). The leader
/// considers itself leader only until `t + lease − margin`, so it steps down by its own clock before anyone
/// can take over, even when its renewals fail or hang. The margin covers clock-rate drift and scheduling.
package struct LeaderLease: Sendable, Equatable {
    package enum Role: Sendable, Equatable {
        case standby
        case leader(epoch: Int64)
    }

    package enum Action: Sendable, Equatable {
        /// Run the acquire query (succeeds when the lease is free, expired, or already this instance's).
        case tryAcquire
        /// Run the renew query for this epoch.
        case renew(epoch: Int64)
        /// This instance now leads with this fencing token.
        case becomeLeader(epoch: Int64)
        /// This instance no longer leads; why, for the log.
        case stepDown(reason: String)
    }

    /// The lease's length in seconds.
    package let lease: TimeInterval
    package private(set) var role: Role = .standby
    /// Own-clock end of the current leadership (nil on a standby).
    package private(set) var validUntil: Date?
    /// When the next query is due (ignored while one is in flight).
    package private(set) var nextAttemptAt: Date
    /// When the query in flight was sent (nil when none is).
    package private(set) var inFlightSince: Date?
    private var failures = 0

    package init(lease: TimeInterval, now: Date) {
        self.lease = lease
        self.nextAttemptAt = now
    }

    /// The leader renews this often: three renewals fit in one lease.
    package var renewInterval: TimeInterval { lease / 3 }
    /// How long before the database's expiry the leader gives up by its own clock.
    package var margin: TimeInterval { max(lease / 5, 0.1) }
    /// First retry after a failed query; doubles up to `renewInterval`.
    package var retryInterval: TimeInterval { min(lease / 10, 1) }
    /// A query still unanswered after this long counts as failed (the shell cancels it).
    package var queryTimeout: TimeInterval { renewInterval }

    package var isLeader: Bool { if case .leader = role { true } else { false } }
    package var epoch: Int64? { if case .leader(let epoch) = role { epoch } else { nil } }

    /// When `tick` next has something to do.
    package var nextDeadline: Date {
        var deadline = inFlightSince.map { $0.addingTimeInterval(queryTimeout) } ?? nextAttemptAt
        if let validUntil { deadline = min(deadline, validUntil) }
        return deadline
    }

    /// What to do at `now`: step down when the leadership ran out on this clock; start the next query when due.
    package mutating func tick(now: Date) -> [Action] {
        var actions: [Action] = []
        if let validUntil, now >= validUntil {
            actions += stepDown(now: now, reason: "lease not renewed within \(Self.seconds(lease - margin)) (database unreachable or too slow)")
        }
        if let sent = inFlightSince, now >= sent.addingTimeInterval(queryTimeout) {
            actions += failed(now: now)
        }
        if inFlightSince == nil, now >= nextAttemptAt {
            inFlightSince = now
            switch role {
            case .standby: actions.append(.tryAcquire)
            case .leader(let epoch): actions.append(.renew(epoch: epoch))
            }
        }
        return actions
    }

    /// The acquire query granted the lease with this epoch.
    package mutating func acquired(epoch: Int64, now: Date) -> [Action] {
        guard let sent = inFlightSince else { return [] }
        inFlightSince = nil
        failures = 0
        let until = sent.addingTimeInterval(lease - margin)
        guard now < until else {
            // Answered too late to be of use: ask again (the same holder may re-acquire, with a new epoch).
            nextAttemptAt = now
            return []
        }
        role = .leader(epoch: epoch)
        validUntil = until
        nextAttemptAt = sent.addingTimeInterval(renewInterval)
        return [.becomeLeader(epoch: epoch)]
    }

    /// The acquire query found the lease held by another instance, expiring `remaining` seconds from the
    /// database's now (nil when unknown): try again just after it can have expired, and at least every renewal.
    package mutating func notAcquired(remaining: TimeInterval?, now: Date) {
        guard inFlightSince != nil else { return }
        inFlightSince = nil
        failures = 0
        let wait = remaining.map { min(max($0 + 0.05, 0.05), renewInterval) } ?? renewInterval
        nextAttemptAt = now.addingTimeInterval(wait)
    }

    /// The renew query extended the lease.
    package mutating func renewed(now: Date) {
        guard let sent = inFlightSince else { return }
        inFlightSince = nil
        failures = 0
        guard isLeader else { nextAttemptAt = now; return }
        validUntil = max(validUntil ?? sent, sent.addingTimeInterval(lease - margin))
        nextAttemptAt = sent.addingTimeInterval(renewInterval)
    }

    /// The renew query found the lease no longer this instance's (expired and taken, or a newer epoch).
    package mutating func renewRefused(now: Date) -> [Action] {
        inFlightSince = nil
        return stepDown(now: now, reason: "the lease was taken over by another instance")
    }

    /// A fenced write was refused: the database says this epoch no longer leads.
    package mutating func fenced(now: Date) -> [Action] {
        stepDown(now: now, reason: "a write was refused by the fence (epoch no longer current)")
    }

    /// The query in flight failed (database unreachable, timeout): retry with backoff; `tick` steps down
    /// when the leadership runs out meanwhile.
    package mutating func failed(now: Date) -> [Action] {
        guard inFlightSince != nil else { return [] }
        inFlightSince = nil
        failures += 1
        let backoff = min(retryInterval * pow(2, Double(failures - 1)), renewInterval)
        nextAttemptAt = now.addingTimeInterval(backoff)
        return []
    }

    /// Gives the leadership up (shutdown); the shell releases the lease in the database.
    package mutating func resign(now: Date) -> [Action] {
        stepDown(now: now, reason: "shutting down")
    }

    private mutating func stepDown(now: Date, reason: String) -> [Action] {
        guard isLeader else { return [] }
        role = .standby
        validUntil = nil
        if inFlightSince == nil { nextAttemptAt = now.addingTimeInterval(retryInterval) }
        return [.stepDown(reason: reason)]
    }

    private static func seconds(_ value: TimeInterval) -> String {
        String(format: "%.1fs", value)
    }
}
