import Foundation
import MarketAlertCore

/// The watched assets (50 unless a daemon run asks for more): the first live, actively traded `<ASSET>USDT` markets of the recorded Binance
/// list (stablecoin bases left out), with their recorded last price in USD as the reference price.
struct BenchMarkets: Sendable {
    static let assetCount = 50
    static let stablecoins: Set<String> = ["USDC", "TUSD", "BUSD", "FDUSD", "USDP", "DAI", "PAX", "UST", "AEUR", "EUR"]
    /// Won per dollar in the mock FX feed and the evaluation book.
    static let usdKRW = 1400.0

    let assets: [String]
    /// Recorded `lastPrice` of `<ASSET>USDT` (exact text) by asset.
    let lastPriceText: [String: String]

    init(_ list: BinanceBulkList, count: Int = Self.assetCount) throws {
        var assets: [String] = []
        var prices: [String: String] = [:]
        for row in list.rows.prefix(list.recordedCount) where row.isLive && row.symbol.hasSuffix("USDT") {
            let base = String(row.symbol.dropLast(4))
            guard !Self.stablecoins.contains(base), assets.count < count,
                  let trades = row.template.text("count").flatMap({ Int($0) }), trades > 1000,
                  let last = row.template.text("lastPrice") else { continue }
            assets.append(base)
            prices[base] = last
        }
        guard assets.count == count else {
            throw FixtureFiles.Missing(description: "only \(assets.count) live USDT markets in \(BinanceBulkList.fixture)")
        }
        self.assets = assets
        self.lastPriceText = prices
    }

    func usdPrice(_ asset: String) -> Double { lastPriceText[asset].flatMap(Double.init) ?? 1 }

    var usdtPairs: Set<MarketPair> { Set(assets.map { MarketPair(base: $0, quote: "USDT") }) }
}
