import Foundation

/// What the engine keeps per offering key (`ipo/<source>/<code>/<start>`, kind `ipo`): the subscription state
/// machine and how long to remember the offering once it leaves the source's list. Notifications in flight
/// are the publisher's (pending events), not part of this state.
package struct IPOAlertState: Codable, Sendable, Equatable {
    package static let kind = "ipo"

    package var machine: SubscriptionStateMachine
    /// While the offering is absent from the source's list, its state is kept until this instant (a month
    /// after its last published day), so a row that reappears is not announced again; then it is forgotten.
    package var keepUntil: Date
    /// The offering as the source last listed it; nil once it has left the list (and in rows written before
    /// it was kept). The last good list is these rows' offerings: after a restart the windows go on at their
    /// day boundaries, and show on the status page, while the source does not answer.
    package var offering: IPOOffering?
    /// v3 `ipo.value`: the market price its value was last assessed with (nil: none known, no `ipo.value`,
    /// or a row written before it was kept). After a restart it stands until its source answers again, so a
    /// window does not wait for a source that is down.
    package var price: MarketPrice?

    package init(machine: SubscriptionStateMachine, keepUntil: Date, offering: IPOOffering? = nil, price: MarketPrice? = nil) {
        self.machine = machine
        self.keepUntil = keepUntil
        self.offering = offering
        self.price = price
    }

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
