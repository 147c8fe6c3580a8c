import Foundation
import MarketAlertCore

/// What the IPO watcher stores per offering key in `alert_state` (kind `ipo`).
///
/// Delivery guarantee: notifications are written here, as `pending`, in the same row write that marks them
/// sent in `machine`, *before* they are handed to the sink; once the sink has taken them the row is
/// rewritten without them. So a crash before that write loses nothing (the restarted watcher re-delivers the
/// pending events), and it never produces a second, different notification for the same transition, because
/// the state machine already counts them as sent. The re-delivered copy is the same event with the same
/// `id` and `at`, which receivers dedupe on (the schema's contract for `id`). Exactly-once is not possible
/// with sinks outside this database; this is at-least-once with a stable id, and the window for a duplicate
/// is the instant between a sink accepting an event and one SQLite write.
package struct IPOPersistedState: Codable, Sendable, Equatable {
    package var machine: SubscriptionStateMachine
    /// Events recorded as due but not yet confirmed handed to the sink.
    package var pending: [AlertEvent]
    /// While the offering is absent from the source's list, its row is kept until this instant (a month after
    /// its last published day), so a row that reappears is not announced again; then it is deleted.
    package var keepUntil: Date

    package init(machine: SubscriptionStateMachine, pending: [AlertEvent] = [], keepUntil: Date) {
        self.machine = machine
        self.pending = pending
        self.keepUntil = keepUntil
    }

    package static let kind = "ipo"

    /// A month after the last day the offering publishes (start, end, lottery); the distant past when no
    /// date parsed (such rows are forgotten as soon as they leave the list).
    package static func keepUntil(_ offering: IPOOffering, calendar: MarketCalendar) -> Date {
        let days = [offering.subscriptionStart, offering.subscriptionEnd, offering.lotteryDate].compactMap { $0 }
        guard let last = days.max(), let expiry = last.adding(days: 31), let instant = calendar.startOfDay(expiry) else {
            return .distantPast
        }
        return instant
    }
}
