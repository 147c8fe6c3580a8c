import Foundation

/// One public-subscription offering (公開申購) as a source publishes it. Dates are calendar days in the
/// source's zone; any of them may be nil when the published text did not parse (the raw text is kept for
/// messages). Prices and share counts are nil when not published yet (`未訂出`).
package struct IPOOffering: Sendable, Equatable, Codable {
    /// The source's configured name, e.g. `twse`.
    package var source: String
    package var code: String
    package var name: String
    /// As published (`發行市場`), e.g. `初上市`, `上櫃增資`.
    package var market: String?
    /// IANA zone of the dates, e.g. `Asia/Taipei`.
    package var timeZone: String
    package var subscriptionStart: CalendarDay?
    package var subscriptionEnd: CalendarDay?
    package var lotteryDate: CalendarDay?
    package var listingDate: CalendarDay?
    /// The published date texts, for messages about dates that did not parse.
    package var subscriptionStartText: String
    package var subscriptionEndText: String
    /// `承銷價(元)`: the announced offer price.
    package var offerPrice: Decimal?
    /// `實際承銷價(元)`: the final price, once fixed.
    package var finalPrice: Decimal?
    /// `承銷股數`.
    package var shares: Int?
    /// `實際承銷股數`.
    package var finalShares: Int?
    /// Currency of the prices (TWD for TWSE).
    package var currency: String
    /// `取消公開抽籤` when not empty: the public draw was cancelled (the text says how).
    package var drawCancelled: String?
    /// `申購股數`: shares per application (usually 1,000).
    package var lotShares: Int?
    /// `總合格件`: qualified applications; 0 until the draw is published.
    package var qualifiedApplications: Int?
    /// `中籤率(%)`: the winning rate; 0 until the draw is published.
    package var winRatePct: Decimal?

    package init(
        source: String, code: String, name: String, market: String?, timeZone: String,
        subscriptionStart: CalendarDay?, subscriptionEnd: CalendarDay?, lotteryDate: CalendarDay? = nil,
        listingDate: CalendarDay? = nil, subscriptionStartText: String? = nil, subscriptionEndText: String? = nil,
        offerPrice: Decimal? = nil, finalPrice: Decimal? = nil, shares: Int? = nil, finalShares: Int? = nil,
        currency: String, drawCancelled: String? = nil, lotShares: Int? = nil, qualifiedApplications: Int? = nil,
        winRatePct: Decimal? = nil
    ) {
        self.source = source
        self.code = code
        self.name = name
        self.market = market
        self.timeZone = timeZone
        self.subscriptionStart = subscriptionStart
        self.subscriptionEnd = subscriptionEnd
        self.lotteryDate = lotteryDate
        self.listingDate = listingDate
        self.subscriptionStartText = subscriptionStartText ?? subscriptionStart?.iso ?? ""
        self.subscriptionEndText = subscriptionEndText ?? subscriptionEnd?.iso ?? ""
        self.offerPrice = offerPrice
        self.finalPrice = finalPrice
        self.shares = shares
        self.finalShares = finalShares
        self.currency = currency
        self.drawCancelled = drawCancelled
        self.lotShares = lotShares
        self.qualifiedApplications = qualifiedApplications
        self.winRatePct = winRatePct
    }

    /// The lottery result is out: TWSE fills `總合格件` and `中籤率(%)` (both `0` before the draw).
    package var drawPublished: Bool {
        (qualifiedApplications ?? 0) > 0 || (winRatePct ?? 0) > 0
    }

    /// `ipo/<source>/<code>/<subscription start YYYY-MM-DD>`, or `…/unknown` when the start did not parse.
    package var key: String { "ipo/\(source)/\(code)/\(subscriptionStart?.iso ?? "unknown")" }

    /// The subscription window, when both dates parsed and are in order.
    package var window: SubscriptionWindow? {
        guard let start = subscriptionStart, let end = subscriptionEnd else { return nil }
        return SubscriptionWindow(start: start, end: end)
    }

    /// The price a subscriber is told: the final price once fixed, else the announced offer price.
    package var price: Decimal? { finalPrice ?? offerPrice }

    /// True when only the announced (not yet final) price is known.
    package var priceIsProvisional: Bool { finalPrice == nil && offerPrice != nil }

    /// Shares offered: the final count once known, else the announced one.
    package var offeredShares: Int? { finalShares ?? shares }

    /// The subscription state on `day` (a calendar day in the source's zone).
    package func state(on day: CalendarDay) -> SubscriptionState {
        window?.state(on: day) ?? .unknown
    }

    /// The subscription state at `instant`.
    package func state(at instant: Date, calendar: MarketCalendar) -> SubscriptionState {
        state(on: calendar.day(of: instant))
    }
}

/// A subscription window: both days inclusive, in the market's zone.
package struct SubscriptionWindow: Sendable, Equatable {
    package let start: CalendarDay
    package let end: CalendarDay

    /// nil when `end` is before `start` (the published dates contradict each other).
    package init?(start: CalendarDay, end: CalendarDay) {
        guard start <= end else { return nil }
        self.start = start
        self.end = end
    }

    /// `upcoming` before the start day, `open` from the start day, `last_day` on the end day, `closed` after.
    package func state(on day: CalendarDay) -> SubscriptionState {
        if day < start { return .upcoming }
        if day < end { return .open }
        if day == end { return .last_day }
        return .closed
    }
}
