import Foundation

/// An exchange rate: `rate` units of `quote` per 1 `base` (USD/KRW 1380 = 1380 KRW per USD).
package struct FXRate: Sendable, Equatable, Codable {
    package var base: String
    package var quote: String
    package var rate: Price
    package var provider: String
    /// The provider's own quote time.
    package var at: Date
    /// Change against the previous business day's close, in percent, where the provider says.
    package var changePct: Double?

    package init(base: String, quote: String, rate: Price, provider: String, at: Date, changePct: Double? = nil) {
        self.base = base
        self.quote = quote
        self.rate = rate
        self.provider = provider
        self.at = at
        self.changePct = changePct
    }

    /// `USD/KRW`.
    package var pair: String { "\(base)/\(quote)" }

    enum CodingKeys: String, CodingKey { case base, quote, rate, provider, at, changePct = "change_pct" }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        base = try c.decode(String.self, forKey: .base)
        quote = try c.decode(String.self, forKey: .quote)
        let text = try c.decode(String.self, forKey: .rate)
        guard let price = Price(text) else {
            throw DecodingError.dataCorruptedError(forKey: .rate, in: c, debugDescription: "not a positive rate: \(text)")
        }
        rate = price
        provider = try c.decode(String.self, forKey: .provider)
        at = try c.decode(Date.self, forKey: .at)
        changePct = try c.decodeIfPresent(Double.self, forKey: .changePct)
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(base, forKey: .base)
        try c.encode(quote, forKey: .quote)
        try c.encode(rate.exact.description, forKey: .rate)
        try c.encode(provider, forKey: .provider)
        try c.encode(at, forKey: .at)
        try c.encodeIfPresent(changePct, forKey: .changePct)
    }
}
