import Foundation
import MarketAlertKit

/// What the rest of the daemon tells the lease keeper about this instance's leadership. Each one asks it to
/// step down when it still leads with that epoch; an event about an older epoch is ignored.
package enum LeadershipEvent: Sendable, Equatable {
    /// The database refused a fenced write of this epoch (`PostgresStore.fencedTransaction`): the lease is no
    /// longer this instance's at that epoch.
    case fenced(epoch: Int64)
    /// The publisher's commit under this epoch failed (database unreachable, or refused); why, for the log.
    case commitFailed(epoch: Int64, reason: String)
    /// The takeover for this epoch could not be done (stored states unreadable): lead again later, not on a guess.
    case takeoverFailed(epoch: Int64)
}

/// The channel those events travel on: reported from anywhere without waiting (`report` yields to an
/// unbounded stream), consumed by one owner, the `LeaseKeeper` running for this instance.
package final class LeadershipEvents: Sendable {
    package let stream: AsyncStream<LeadershipEvent>
    private let continuation: AsyncStream<LeadershipEvent>.Continuation

    package init() {
        (stream, continuation) = AsyncStream.makeStream(of: LeadershipEvent.self)
    }

    package func report(_ event: LeadershipEvent) {
        continuation.yield(event)
    }

    /// Ends the stream: its owner stops consuming it.
    package func finish() {
        continuation.finish()
    }
}

/// What the lease keeper tells its owner (`HAService`), in the order it decided them.
package enum LeadershipChange: Sendable, Equatable {
    /// This instance leads with `epoch`; the store's writes are fenced with it. The owner does the takeover
    /// and reports `.takeoverFailed` when it cannot.
    case leads(epoch: Int64)
    /// This instance no longer leads (the store's fence is already cleared); why, for the log.
    case standsBy(reason: String)
}
