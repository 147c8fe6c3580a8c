import Foundation

/// Where an offering's market price comes from (`ipo.value.market_price_source` in the event schema).
package enum MarketPriceSource: String, Sendable, Codable, CaseIterable, Hashable {
    /// TWSE's daily close (`exchangeReport/STOCK_DAY_ALL`), for companies already listed on TWSE.
    case twse_close
    /// TPEx's daily close of the OTC main board, for companies already traded over the counter.
    case tpex_close
    /// TPEx's emerging-board (興櫃) average price, for a first listing while it still trades there.
    case tpex_emerging

    /// The source's name in logs, health and `source/<name>` alerts.
    package var sourceName: String { rawValue }

    /// How renderings name the price: `close`, `OTC close`, `emerging`.
    package var label: String {
        switch self {
        case .twse_close: "close"
        case .tpex_close: "OTC close"
        case .tpex_emerging: "emerging"
        }
    }

    /// The price that tells what an offering is worth, by its published market type (`發行市場`):
    /// a first listing (`初上市`, `初上櫃`, `創新板…`) trades on the emerging board until it lists; a listed
    /// company's cash offering (`上市增資`, `第一上市公司現金增資`) trades on TWSE; an OTC company's
    /// (`上櫃增資`) on TPEx. nil for anything else (the price is then unknown).
    package static func forMarket(_ market: String?) -> MarketPriceSource? {
        guard let market = market?.trimmingCharacters(in: .whitespaces), !market.isEmpty else { return nil }
        if market.contains("初上") || market.contains("創新板") { return .tpex_emerging }
        if market.contains("上市") { return .twse_close }
        if market.contains("上櫃") { return .tpex_close }
        return nil
    }

    /// Where a first listing trades once it has left the emerging board: TWSE (`初上市`, `創新板…`) or TPEx
    /// (`初上櫃`). nil for any other market type (its price source does not change).
    package static func afterListing(_ market: String?) -> MarketPriceSource? {
        guard forMarket(market) == .tpex_emerging, let market else { return nil }
        return market.contains("初上櫃") ? .tpex_close : .twse_close
    }

    /// The sources that can price an offering of `market`, in order: where it trades now, then (a first
    /// listing) where it trades once listed.
    package static func candidates(for market: String?) -> [MarketPriceSource] {
        [forMarket(market), afterListing(market)].compactMap { $0 }
    }
}

/// One security's end-of-day price from one source: the close, or the emerging board's average.
package struct MarketPrice: Sendable, Equatable, Codable {
    package var code: String
    package var price: Decimal
    /// The trading day the price is of, in Asia/Taipei.
    package var date: CalendarDay
    package var source: MarketPriceSource

    package init(code: String, price: Decimal, date: CalendarDay, source: MarketPriceSource) {
        self.code = code
        self.price = price
        self.date = date
        self.source = source
    }
}

/// One poll of a market-price source: every security it priced, by code. Empty on a day with no rows (a
/// holiday), which leaves the previous prices in place. `failed`: the poll failed (its health is reported
/// apart); the source counts as answered, so windows stop waiting for it and say the price is unknown.
package struct MarketPriceReport: Sendable, Equatable {
    package var source: MarketPriceSource
    package var prices: [String: MarketPrice]
    package var failed: Bool

    package init(source: MarketPriceSource, prices: [String: MarketPrice], failed: Bool = false) {
        self.source = source
        self.prices = prices
        self.failed = failed
    }
}
