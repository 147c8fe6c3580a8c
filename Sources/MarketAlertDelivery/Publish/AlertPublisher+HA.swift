import Foundation
import Logging
import MarketAlertCore
import MarketAlertKit
import MarketAlertStorage

/// The publisher in an HA group. A standby decides like a leader but publishes nothing: no commit, no sink,
/// no pending redelivery. A leader delivers only what a fenced commit saved: when the commit fails (the
/// database unreachable, or the lease lost), nothing is delivered; the instance steps down and, once it (or
/// another instance) leads again, the takeover adopts the stored states and re-evaluates, so the transition
/// is decided again relative to what was stored, and notified then: held, not lost, and never without a lease.
package struct PublisherLeadership: Sendable {
    /// The epoch this publisher leads with; nil on a standby.
    package var epoch: Int64?
    /// Where a failed commit is reported (`LeadershipEvent.commitFailed`: the lease keeper steps down and
    /// tries to lead again).
    package var events: LeadershipEvents
}

extension AlertPublisher {
    /// Makes this publisher an HA member, a standby until `beginLeading`; it reports failed commits to `events`.
    package func enableHA(reportingTo events: LeadershipEvents) {
        ha = PublisherLeadership(epoch: nil, events: events)
    }

    /// From here on this instance leads with `epoch`: first what the routes held is read back (the previous
    /// leader's inhibitors and held notifications), then what it committed but did not clear goes out again
    /// with its original ids. Called by the engine loop in its input order, before the
    /// takeover's own decisions.
    package func beginLeading(epoch: Int64) async {
        guard ha != nil else { return }
        ha?.epoch = epoch
        await restoreRouting()
        await redeliverPending()
    }

    /// Stops publishing at once (the lease is lost or given up).
    package func stopLeading() {
        ha?.epoch = nil
    }

    /// The epoch this publisher leads with (nil on a standby or a single instance).
    package var leadingEpoch: Int64? { ha?.epoch }

    /// Commits `publication` as the leader; false when it must not be delivered (standby, or the commit failed).
    package func commitLeading(_ publication: Publication, ha: PublisherLeadership) async -> Bool {
        guard let epoch = ha.epoch, let store else {
            if !publication.events.isEmpty {
                logger.debug("standby: \(publication.events.count) notification(s) decided, left to the leader")
            }
            return false
        }
        do {
            try await store.commit(publication, at: publicationClock.now())
            return true
        } catch {
            let keys = (publication.states.map(\.key) + publication.events.map(\.key)).uniqued().joined(separator: ", ")
            logger.error(
                "HA: not delivered, the commit failed (\(keys)): \(error); stepping down, the next leader decides again from the stored state")
            self.ha?.epoch = nil
            ha.events.report(.commitFailed(epoch: epoch, reason: "\(error)"))
            return false
        }
    }
}
