import Foundation

/// One notification, as `shared/spec/alert-event.schema.json` (v2; `version` stays 1: every v1 event is a
/// valid v2 event) describes it. Numbers follow ``NumberText``: exact published prices and rates, percentages
/// to at most 6 decimals, `price_ref` per ``CurrencyDigits``. The same value is written
/// to stdout, posted as a `json` webhook body and mirrored into journal fields.
package struct AlertEvent: Sendable, Equatable, Codable {
    package var version = 1
    /// Unique per notification, unchanged across delivery retries.
    package var id: String
    /// Stable identity of the thing alerted on, e.g. `premium/global/BTC`.
    package var key: String
    package var kind: AlertKind
    /// `firing`/`resolved`, or for IPO events the new subscription state.
    package var status: String
    package var severity: Severity
    /// When the transition was detected (UTC).
    package var at: Date
    package var summary: String
    package var premium: PremiumDetail?
    package var ipo: IPODetail?
    package var fx: FXDetail?
    package var source: SourceDetail?
    /// v2: the daily digest (kind `digest`).
    package var digest: DigestDetail?
    /// v3: an asset's deposit and withdrawal status (kind `transfer`).
    package var transfer: AssetTransferStatus?
    /// v3: a market listed on or delisted from an exchange (kind `listing`).
    package var listing: ListingDetail?
    /// v3: the keys of the firing notifications that inhibit this one (routed sinks did not get it; stdout and
    /// the journal say so here). Absent when not inhibited.
    package var inhibitedBy: [String]?

    package init(
        id: String, key: String, kind: AlertKind, status: String, severity: Severity, at: Date, summary: String,
        premium: PremiumDetail? = nil, ipo: IPODetail? = nil, fx: FXDetail? = nil, source: SourceDetail? = nil,
        digest: DigestDetail? = nil
    ) {
        self.id = id
        self.key = key
        self.kind = kind
        self.status = status
        self.severity = severity
        self.at = at
        self.summary = summary
        self.premium = premium
        self.ipo = ipo
        self.fx = fx
        self.source = source
        self.digest = digest
    }

    /// Every stored property must be listed here (snake_case where the schema says so), or it is silently
    /// left out of the JSON.
    enum CodingKeys: String, CodingKey {
        case version, id, key, kind, status, severity, at, summary, premium, ipo, fx, source, digest, transfer, listing
        case inhibitedBy = "inhibited_by"
    }

    package enum Status {
        package static let firing = "firing"
        package static let resolved = "resolved"
    }
}

/// A quote as used in a premium, in its own currency and in the reference currency.
package struct QuoteDetail: Sendable, Equatable, Codable {
    package var exchange: String
    package var market: String
    package var price: Decimal
    package var quote: String
    package var priceRef: Decimal
    package var side: String?
    package var at: Date
    /// v2: how the quote arrived, `stream` or `rest` (absent in version-1 events).
    package var transport: String?

    package init(
        exchange: String, market: String, price: Decimal, quote: String, priceRef: Decimal, side: String?, at: Date,
        transport: String? = nil
    ) {
        self.exchange = exchange
        self.market = market
        self.price = price
        self.quote = quote
        self.priceRef = priceRef
        self.side = side
        self.at = at
        self.transport = transport
    }

    enum CodingKeys: String, CodingKey { case exchange, market, price, quote, priceRef = "price_ref", side, at, transport }
}

package struct FXDetail: Sendable, Equatable, Codable {
    package var pair: String
    package var rate: Decimal
    package var provider: String
    package var at: Date
    /// At most 6 decimals in JSON (``OptionalPercentNumber``).
    @OptionalPercentNumber package var changePct: Double?
    /// v3, pair USDT/KRW: the tether premium against the official USD/KRW, in percent.
    @OptionalPercentNumber package var premiumPct: Double?

    package init(pair: String, rate: Decimal, provider: String, at: Date, changePct: Double? = nil) {
        self.pair = pair
        self.rate = rate
        self.provider = provider
        self.at = at
        self.changePct = changePct
    }

    package init(_ rate: FXRate) {
        self.init(
            pair: rate.pair, rate: rate.rate.exact, provider: rate.provider, at: rate.at,
            changePct: rate.changePct.map { NumberText.double(NumberText.pct($0)) })
    }

    enum CodingKeys: String, CodingKey { case pair, rate, provider, at, changePct = "change_pct", premiumPct = "premium_pct" }
}

package struct PremiumDetail: Sendable, Equatable, Codable {
    package var rule: String
    package var asset: String
    /// At most 6 decimals in JSON (``PercentNumber``).
    @PercentNumber package var pct: Double
    @PercentNumber package var thresholdPct: Double
    package var basis: PremiumBasis
    package var reference: String
    package var high: QuoteDetail
    package var low: QuoteDetail
    package var fx: [FXDetail]
    /// v2: where `pct` stands in the key's history (absent without `history:` or before 10 samples).
    package var context: PremiumContext?
    /// v3, basis depth: the trade behind `pct`.
    package var executable: ExecutableDetail?
    /// v3, with `transfers:`: can the asset move from the low (buy) exchange to the high (sell) one?
    package var transfer: PremiumTransferDetail?
    /// v3, rules comparing KRW with USD-quoted markets: the premium on both KRW conversions.
    package var bases: BasesDetail?

    package init(
        rule: String, asset: String, pct: Double, thresholdPct: Double, basis: PremiumBasis, reference: String,
        high: QuoteDetail, low: QuoteDetail, fx: [FXDetail]
    ) {
        self.rule = rule
        self.asset = asset
        self.pct = pct
        self.thresholdPct = thresholdPct
        self.basis = basis
        self.reference = reference
        self.high = high
        self.low = low
        self.fx = fx
    }

    enum CodingKeys: String, CodingKey {
        case rule, asset, pct, thresholdPct = "threshold_pct", basis, reference, high, low, fx, context, executable, transfer, bases
    }
}

/// Subscription states of an IPO offering.
package enum SubscriptionState: String, Sendable, Codable, CaseIterable {
    case upcoming, open, last_day, closed, unknown
}

package struct IPODetail: Sendable, Equatable, Codable {
    package var source: String
    package var code: String
    package var name: String
    package var market: String?
    package var state: SubscriptionState
    package var previousState: SubscriptionState?
    /// Gregorian `YYYY-MM-DD` in the market's zone, or nil when the published date could not be parsed.
    package var subscriptionStart: String?
    package var subscriptionEnd: String?
    package var lotteryDate: String?
    package var listingDate: String?
    package var price: Decimal?
    package var shares: Int?
    package var timeZone: String?
    /// v3, with `ipo.value` enabled: what a winning application is worth.
    package var value: IPOValue?

    package init(
        source: String, code: String, name: String, market: String?, state: SubscriptionState,
        previousState: SubscriptionState?, subscriptionStart: String?, subscriptionEnd: String?,
        lotteryDate: String?, listingDate: String?, price: Decimal?, shares: Int?, timeZone: String?
    ) {
        self.source = source
        self.code = code
        self.name = name
        self.market = market
        self.state = state
        self.previousState = previousState
        self.subscriptionStart = subscriptionStart
        self.subscriptionEnd = subscriptionEnd
        self.lotteryDate = lotteryDate
        self.listingDate = listingDate
        self.price = price
        self.shares = shares
        self.timeZone = timeZone
    }

    enum CodingKeys: String, CodingKey {
        case source, code, name, market, state, previousState = "previous_state"
        case subscriptionStart = "subscription_start", subscriptionEnd = "subscription_end"
        case lotteryDate = "lottery_date", listingDate = "listing_date", price, shares, timeZone = "time_zone"
        case value
    }

    /// The schema requires these keys to be present (as null when unknown), so encode nil explicitly.
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(source, forKey: .source)
        try c.encode(code, forKey: .code)
        try c.encode(name, forKey: .name)
        try c.encodeIfPresent(market, forKey: .market)
        try c.encode(state, forKey: .state)
        try c.encode(previousState, forKey: .previousState)
        try c.encode(subscriptionStart, forKey: .subscriptionStart)
        try c.encode(subscriptionEnd, forKey: .subscriptionEnd)
        try c.encode(lotteryDate, forKey: .lotteryDate)
        try c.encode(listingDate, forKey: .listingDate)
        try c.encode(price, forKey: .price)
        try c.encode(shares, forKey: .shares)
        try c.encodeIfPresent(timeZone, forKey: .timeZone)
        try c.encodeIfPresent(value, forKey: .value)
    }
}

package struct SourceDetail: Sendable, Equatable, Codable {
    package var name: String
    package var error: String?
    package var lastSuccess: Date?
    package var consecutiveFailures: Int?

    package init(name: String, error: String?, lastSuccess: Date?, consecutiveFailures: Int?) {
        self.name = name
        self.error = error
        self.lastSuccess = lastSuccess
        self.consecutiveFailures = consecutiveFailures
    }

    enum CodingKeys: String, CodingKey {
        case name, error, lastSuccess = "last_success", consecutiveFailures = "consecutive_failures"
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(error, forKey: .error)
        try c.encode(lastSuccess, forKey: .lastSuccess)
        try c.encodeIfPresent(consecutiveFailures, forKey: .consecutiveFailures)
    }
}
