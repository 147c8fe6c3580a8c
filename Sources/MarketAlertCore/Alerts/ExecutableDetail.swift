import Foundation

/// v3 `premium.executable` (basis depth): the trade behind `pct`, as the schema's `executable` and `leg`.
package struct ExecutableDetail: Sendable, Equatable, Codable {
    package struct Leg: Sendable, Equatable, Codable {
        package var exchange: String
        package var market: String
        package var vwap: Decimal
        package var vwapRef: Decimal
        package var levels: Int
        package var feePct: Double
        package var bookAt: Date?

        enum CodingKeys: String, CodingKey {
            case exchange, market, vwap, vwapRef = "vwap_ref", levels, feePct = "fee_pct", bookAt = "book_at"
        }
    }

    package var notional: Decimal
    package var quantity: Decimal
    @PercentNumber package var grossPct: Double
    @PercentNumber package var netPct: Double
    package var buy: Leg
    package var sell: Leg
    /// Null when not computed (the trade is below the rule's first level).
    package var maxNotional: Decimal?

    enum CodingKeys: String, CodingKey {
        case notional, quantity, grossPct = "gross_pct", netPct = "net_pct", buy, sell, maxNotional = "max_notional"
    }

    package init(_ trade: ExecutablePremium, reference: String) {
        func leg(_ leg: ExecutableLeg) -> Leg {
            Leg(
                exchange: leg.exchange.rawValue, market: leg.market, vwap: Self.significant(leg.vwap),
                vwapRef: CurrencyDigits.priceRef(leg.vwapRef, currency: reference), levels: leg.levels, feePct: leg.feePct,
                bookAt: leg.bookAt)
        }
        notional = CurrencyDigits.priceRef(trade.notional, currency: reference)
        quantity = Self.significant(trade.quantity)
        grossPct = NumberText.double(NumberText.pct(trade.grossPct))
        netPct = NumberText.double(NumberText.pct(trade.netPct))
        buy = leg(trade.buy)
        sell = leg(trade.sell)
        // To 2 significant digits or better: 3.
        maxNotional = trade.maxNotional.map { Self.significant($0, digits: 3) }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(notional, forKey: .notional)
        try container.encode(quantity, forKey: .quantity)
        try container.encode(_grossPct, forKey: .grossPct)
        try container.encode(_netPct, forKey: .netPct)
        try container.encode(buy, forKey: .buy)
        try container.encode(sell, forKey: .sell)
        try container.encode(maxNotional, forKey: .maxNotional)  // null, not absent, when not computed
    }

    /// `value` to `digits` significant digits, as an exact decimal (no binary noise in the JSON).
    static func significant(_ value: Double, digits: Int = 8) -> Decimal {
        guard value.isFinite, value != 0 else { return 0 }
        let text = String(format: "%.\(digits)g", value)
        return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) ?? Decimal(value)
    }
}
