import Foundation

/// What a winning application is worth (`ipo.value` in the event schema, v3): the offer price against the
/// market price of the stock, in exact decimals. Built from the offering as published and the latest price
/// of the source its market type calls for (``MarketPriceSource/forMarket(_:)``).
package struct IPOValue: Sendable, Equatable, Codable {
    /// 承銷價 per share (the final price once fixed).
    package var offerPrice: Decimal?
    package var currency: String
    package var marketPrice: Decimal?
    package var marketPriceSource: MarketPriceSource?
    /// Gregorian `YYYY-MM-DD` of the trading day the market price is of.
    package var marketPriceDate: String?
    /// `(market ÷ offer − 1) × 100`, rounded to 6 decimals; nil when either price is unknown.
    package var spreadPct: Decimal?
    /// Shares per application (`申購股數`, usually 1,000).
    package var lotShares: Int?
    /// `(market − offer) × lot_shares` TWD for a winning application, before the fixed fees.
    package var expectedProfit: Decimal?
    /// 中籤率 (%) once the draw is published.
    package var winRatePct: Decimal?

    package init(
        offerPrice: Decimal?, currency: String, marketPrice: Decimal? = nil, marketPriceSource: MarketPriceSource? = nil,
        marketPriceDate: String? = nil, spreadPct: Decimal? = nil, lotShares: Int? = nil, expectedProfit: Decimal? = nil,
        winRatePct: Decimal? = nil
    ) {
        self.offerPrice = offerPrice
        self.currency = currency
        self.marketPrice = marketPrice
        self.marketPriceSource = marketPriceSource
        self.marketPriceDate = marketPriceDate
        self.spreadPct = spreadPct
        self.lotShares = lotShares
        self.expectedProfit = expectedProfit
        self.winRatePct = winRatePct
    }

    /// The value of `offering` given `price`, the latest price of its stock from the source its market type
    /// calls for (nil when unknown). `marketPriceSource` names that source even while its price is unknown.
    package static func of(_ offering: IPOOffering, price: MarketPrice?) -> IPOValue {
        let offer = offering.price
        var value = IPOValue(
            offerPrice: offer, currency: offering.currency, marketPriceSource: MarketPriceSource.forMarket(offering.market),
            lotShares: offering.lotShares, winRatePct: offering.drawPublished ? offering.winRatePct : nil)
        guard let price else { return value }
        value.marketPrice = price.price
        value.marketPriceSource = price.source
        value.marketPriceDate = price.date.iso
        if let offer, offer > 0 {
            var spread = (price.price / offer - 1) * 100
            var rounded = Decimal()
            NSDecimalRound(&rounded, &spread, 6, .plain)
            value.spreadPct = rounded
            if let lot = offering.lotShares { value.expectedProfit = (price.price - offer) * Decimal(lot) }
        }
        return value
    }

    /// Whether `opens`/`last_day` may notify under `min_spread_pct`: yes when the spread is at least the
    /// minimum, and when the spread is unknown (the notification then says so).
    package func isWorth(minSpreadPct: Decimal) -> Bool {
        guard let spreadPct else { return true }
        return spreadPct >= minSpreadPct
    }

    /// `offer 160 TWD, emerging 235 TWD (+46.9%), ≈ 75,000 TWD per winning lot`, `market price unknown`,
    /// with `, win rate 0.28%` once drawn.
    package var text: String {
        var parts: [String] = []
        if let offerPrice { parts.append("offer \(NumberText.exact(offerPrice)) \(currency)") }
        if let marketPrice, let source = marketPriceSource {
            var market = "\(source.label) \(NumberText.exact(marketPrice)) \(currency)"
            if let spreadPct { market += " (\(spreadPct >= 0 ? "+" : "")\(NumberText.grouped(spreadPct, fractionDigits: 1))%)" }
            parts.append(market)
            if let expectedProfit {
                parts.append("≈ \(NumberText.grouped(expectedProfit, fractionDigits: 0)) \(currency) per winning lot")
            }
        } else {
            parts.append("market price unknown")
        }
        if let winRatePct { parts.append("win rate \(NumberText.exact(winRatePct))%") }
        return parts.joined(separator: ", ")
    }

    enum CodingKeys: String, CodingKey {
        case offerPrice = "offer_price", currency, marketPrice = "market_price", marketPriceSource = "market_price_source"
        case marketPriceDate = "market_price_date", spreadPct = "spread_pct", lotShares = "lot_shares"
        case expectedProfit = "expected_profit", winRatePct = "win_rate_pct"
    }

    /// Every key present, null when unknown (as the other event objects).
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(offerPrice, forKey: .offerPrice)
        try c.encode(currency, forKey: .currency)
        try c.encode(marketPrice, forKey: .marketPrice)
        try c.encode(marketPriceSource, forKey: .marketPriceSource)
        try c.encode(marketPriceDate, forKey: .marketPriceDate)
        try c.encode(spreadPct, forKey: .spreadPct)
        try c.encode(lotShares, forKey: .lotShares)
        try c.encode(expectedProfit, forKey: .expectedProfit)
        try c.encode(winRatePct, forKey: .winRatePct)
    }
}
