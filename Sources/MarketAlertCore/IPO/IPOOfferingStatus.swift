import Foundation

/// One row of the IPO watcher's current view (for `marketalertd once` and the service status line).
package struct IPOOfferingStatus: Sendable, Equatable {
    package var key: String
    package var source: String
    package var code: String
    package var name: String
    package var market: String?
    package var state: SubscriptionState
    package var subscriptionStart: CalendarDay?
    package var subscriptionEnd: CalendarDay?
    package var lotteryDate: CalendarDay?
    package var listingDate: CalendarDay?
    package var price: Decimal?
    package var priceIsProvisional: Bool
    package var currency: String
    package var shares: Int?
    package var timeZone: String
    /// v3 `ipo.value`: offer and market price, spread, win rate (nil without `ipo.value`).
    package var value: IPOValue?

    package init(_ offering: IPOOffering, state: SubscriptionState) {
        key = offering.key
        source = offering.source
        code = offering.code
        name = offering.name
        market = offering.market
        self.state = state
        subscriptionStart = offering.subscriptionStart
        subscriptionEnd = offering.subscriptionEnd
        lotteryDate = offering.lotteryDate
        listingDate = offering.listingDate
        price = offering.price
        priceIsProvisional = offering.priceIsProvisional
        currency = offering.currency
        shares = offering.offeredShares
        timeZone = offering.timeZone
    }

    /// Subscribable today (`open` or `last_day`).
    package var isOpen: Bool { state == .open || state == .last_day }
}
