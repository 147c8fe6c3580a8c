import Foundation

/// v3 `ipo.value`: what a subscription is worth. With it, the daemon fetches the market price of every
/// offering's stock (TWSE and TPEx end-of-day data) and puts `ipo.value` in every ipo notification.
package struct IPOValueSettings: Sendable, Equatable {
    package var enabled = true
    /// `opens` and `last_day` notify only when the spread is at least this (percent); an unknown spread
    /// still notifies.
    package var minSpreadPct: Decimal = 0
    /// TWSE's site (`exchangeReport/STOCK_DAY_ALL`).
    package var twseURL = URL(string: "https://www.twse.com.tw")!  // literal
    /// TPEx's site (its OpenAPI under `openapi/v1/`).
    package var tpexURL = URL(string: "https://www.tpex.org.tw")!  // literal
    package var timeout: Duration = .seconds(10)
    /// Prices are end-of-day data: polled once per trading day at this local time (Asia/Taipei), after
    /// TWSE, TPEx and the emerging board have published.
    package var timeZone = "Asia/Taipei"
    package var pollHour = 17

    package init() {}

    package func baseURL(for source: MarketPriceSource) -> URL {
        source == .twse_close ? twseURL : tpexURL
    }
}

extension IPOValueSettings {
    mutating func read(_ t: ConfigTable) {
        if let value = t.bool("enabled") { enabled = value }
        if let value = t.number("min_spread_pct") {
            if value.isFinite, value > -100, value < 100_000 {
                minSpreadPct = NumberText.decimal(value, places: 6)
            } else {
                t.error("min_spread_pct", "expected a percentage above -100, got \(value)")
            }
        }
        if let sources = t.table("sources") {
            if let url = sources.url("twse") { twseURL = url }
            if let url = sources.url("tpex") { tpexURL = url }
            sources.finish()
        }
        if let value = t.duration("timeout") {
            if value > .zero { timeout = value } else { t.error("timeout", "must be greater than 0") }
        }
        t.finish()
    }
}
