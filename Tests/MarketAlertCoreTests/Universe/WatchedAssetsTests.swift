import Foundation
import MarketAlertCore
import Testing

/// v3 `assets: all`, `min_exchanges`, `exclude_assets` and `min_volume_24h`: which assets a rule watches and
/// which markets it ignores, from the exchanges' market lists and 24 h volumes.
@Suite struct WatchedAssetsTests {
    /// KRW at 1,400 per USD; USDT 1:1.
    func toUSD(_ volume: Double, _ currency: String) -> Double? {
        switch currency {
        case "USDT", "USD": volume
        case "KRW": volume / 1400
        default: nil
        }
    }

    func market(_ base: String, _ quote: String, _ volume: Double? = nil) -> UniverseMarket {
        UniverseMarket(MarketPair(base: base, quote: quote), volume24h: volume)
    }

    var universe: MarketUniverse {
        var universe = MarketUniverse()
        universe.set(.upbit, [
            market("BTC", "KRW", 140e9), market("ETH", "KRW", 70e9), market("NEWCOIN", "KRW", 14e9),
            market("THIN", "KRW", 140e6), market("USDT", "KRW", 28e9), market("XRP", "BTC", 1),
        ])
        universe.set(.bithumb, [market("BTC", "KRW", 28e9), market("ETH", "KRW", 1.4e9), market("THIN", "KRW", 70e6), market("USDT", "KRW", 14e9)])
        universe.set(.binance, [
            market("BTC", "USDT", 2e9), market("ETH", "USDT", 1e9), market("THIN", "USDT", 20_000), market("XRP", "USDT", 3e8),
            market("USDT", "TRY", 5e8),
        ])
        return universe
    }

    func rule(min: Int? = nil, exclude: Set<String> = [], floor: Double = 0, assets: [String]? = nil) -> PremiumRule {
        var rule = PremiumRule(
            name: "kimchi-all", assets: assets ?? [], exchanges: [.upbit, .bithumb, .binance], quotes: ["KRW", "USDT"],
            levels: [AlertLevel(pct: 4, severity: .warning)], clearPct: 3.5)
        rule.selection.all = assets == nil
        if let min { rule.selection.minExchanges = min }
        rule.selection.excludeAssets = exclude
        rule.selection.minVolume24h = floor
        return rule
    }

    @Test func anAssetListedOnOneExchangeOnlyIsNotWatched() {
        let choice = WatchedAssets.choose(for: rule(), in: universe, toReference: toUSD)
        // NEWCOIN: Upbit only. XRP: Upbit's is a BTC market (not a quote of the rule), so Binance alone.
        #expect(choice.assets == ["BTC", "ETH", "THIN", "USDT"])
        #expect(choice.ignored.isEmpty)
    }

    @Test func excludedAssetsAreLeftOut() {
        let choice = WatchedAssets.choose(for: rule(exclude: ["USDT", "USDC"]), in: universe, toReference: toUSD)
        #expect(choice.assets == ["BTC", "ETH", "THIN"])
    }

    @Test func minExchangesCountsDistinctExchanges() {
        #expect(WatchedAssets.choose(for: rule(min: 3), in: universe, toReference: toUSD).assets == ["BTC", "ETH", "THIN"])
    }

    /// 1,000,000 USD: THIN trades 100,000 / 50,000 USD in KRW and 20,000 USDT, so no market of it counts;
    /// ETH's Bithumb market (1,000,000 USD) is exactly at the floor and counts; USDT/KRW on Bithumb does too.
    @Test func illiquidMarketsAreIgnoredAndCountForNoExchange() {
        let choice = WatchedAssets.choose(for: rule(exclude: ["USDT"], floor: 1_000_000), in: universe, toReference: toUSD)
        #expect(choice.assets == ["BTC", "ETH"])
        // Only markets of watched assets are reported as ignored (THIN is not watched at all).
        #expect(choice.ignored.isEmpty)
        let thin = WatchedAssets.choose(for: rule(exclude: ["USDT"], floor: 90_000), in: universe, toReference: toUSD)
        #expect(thin.assets == ["BTC", "ETH"])
        let thinner = WatchedAssets.choose(for: rule(exclude: ["USDT"], floor: 40_000), in: universe, toReference: toUSD)
        #expect(thinner.assets == ["BTC", "ETH", "THIN"])
        #expect(thinner.ignored == [ExchangeMarket(.binance, MarketPair(base: "THIN", quote: "USDT"))])
    }

    @Test func aFloorWithAFixedListKeepsTheListAndIgnoresItsThinMarkets() {
        let choice = WatchedAssets.choose(for: rule(floor: 60_000, assets: ["ETH", "THIN"]), in: universe, toReference: toUSD)
        #expect(choice.assets == ["ETH", "THIN"])
        #expect(choice.ignored == [
            ExchangeMarket(.bithumb, MarketPair(base: "THIN", quote: "KRW")), ExchangeMarket(.binance, MarketPair(base: "THIN", quote: "USDT")),
        ])
    }

    /// A volume that is unknown, or in a currency without a rate, cannot clear a floor; without a floor it
    /// does not matter. NaN and negative volumes are unknown, never numbers.
    @Test func unknownVolumesCountOnlyWithoutAFloor() {
        var universe = MarketUniverse()
        universe.set(.upbit, [market("SOL", "KRW", nil), market("ADA", "KRW", .nan), market("DOT", "KRW", -5)])
        universe.set(.binance, [market("SOL", "USDT", 5e7), market("ADA", "USDT", 5e7), market("DOT", "USDT", 5e7)])
        #expect(universe.markets[.upbit]?.allSatisfy { $0.volume24h == nil } == true)
        #expect(WatchedAssets.choose(for: rule(), in: universe, toReference: toUSD).assets == ["ADA", "DOT", "SOL"])
        #expect(WatchedAssets.choose(for: rule(floor: 1), in: universe, toReference: toUSD).assets.isEmpty)
        #expect(WatchedAssets.choose(for: rule(floor: 1), in: universe) { _, _ in nil }.assets.isEmpty)
    }

    @Test func anExchangeNotYetReadCountsForNothing() {
        var partial = MarketUniverse()
        partial.set(.upbit, universe.markets[.upbit] ?? [])
        #expect(WatchedAssets.choose(for: rule(), in: partial, toReference: toUSD).assets.isEmpty)
        #expect(!partial.knows(.binance))
    }

    @Test func aVersionTwoConfigurationIsReturnedUnchanged() {
        var settings = Settings()
        settings.premium.rules = [rule(assets: ["BTC", "ETH"])]
        let converter = CurrencyConverter(reference: "USD", stablecoinsAs: ["USDT": "USD"], usdRates: [:])
        #expect(!settings.needsAssetUniverse)
        #expect(settings.resolvingAssets(in: universe, converter: converter) == settings)
        settings.premium.rules.append(rule())
        settings.exchanges = [.upbit: .init(id: .upbit, baseURL: URL(fileURLWithPath: "/")), .binance: .init(id: .binance, baseURL: URL(fileURLWithPath: "/"))]
        let resolved = settings.resolvingAssets(in: universe, converter: converter)
        #expect(resolved.premium.rules[0] == settings.premium.rules[0])
        #expect(resolved.premium.rules[1].assets == ["BTC", "ETH", "THIN", "USDT"])
        #expect(settings.universeExchanges == [.upbit, .binance])
    }
}
