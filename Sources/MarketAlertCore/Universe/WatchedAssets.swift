import Foundation

/// v3 `assets: all` and `min_volume_24h`: which assets a rule watches and which of its markets it ignores,
/// given what the exchanges list (`MarketUniverse`). Pure: the refresh that reads the lists calls it.
package enum WatchedAssets {
    package struct Choice: Sendable, Equatable {
        /// The assets, sorted (a fixed list is kept as written).
        package var assets: [String]
        /// Markets of those assets below `min_volume_24h` (or whose volume is unknown while a floor is set).
        package var ignored: Set<ExchangeMarket>

        package init(assets: [String], ignored: Set<ExchangeMarket> = []) {
            self.assets = assets
            self.ignored = ignored
        }
    }

    /// The rule's choice. `toReference(volume, currency)` converts a 24 h volume into the reference currency
    /// (nil: no rate; such a market cannot be shown to clear a floor and is ignored when one is set).
    ///
    /// An asset counts an exchange when the exchange lists it in one of the rule's quotes with a market that
    /// clears the floor; with `assets: all` it is watched when at least `min_exchanges` exchanges count and
    /// it is not excluded. An exchange whose list is unknown counts for nothing.
    package static func choose(
        for rule: PremiumRule, in universe: MarketUniverse, toReference: (Double, String) -> Double?
    ) -> Choice {
        let selection = rule.selection
        let quotes = Set(rule.quotes)
        let floor = selection.minVolume24h
        var exchangesByAsset: [String: Int] = [:]
        var ignored: Set<ExchangeMarket> = []
        var seenExchanges: Set<ExchangeID> = []
        for exchange in rule.exchanges where seenExchanges.insert(exchange).inserted {
            guard let markets = universe.markets[exchange] else { continue }
            var counted: Set<String> = []
            for market in markets where quotes.contains(market.pair.quote) {
                let liquid = floor <= 0
                    || (market.volume24h.flatMap { toReference($0, market.pair.quote) }.map { $0 >= floor } ?? false)
                guard liquid else {
                    ignored.insert(ExchangeMarket(exchange, market.pair))
                    continue
                }
                if counted.insert(market.pair.base).inserted { exchangesByAsset[market.pair.base, default: 0] += 1 }
            }
        }
        let assets: [String]
        if selection.all {
            assets = exchangesByAsset
                .filter { $0.value >= selection.minExchanges && !selection.excludeAssets.contains($0.key) }
                .map(\.key).sorted()
        } else {
            assets = rule.assets
        }
        let watched = Set(assets)
        return Choice(assets: assets, ignored: ignored.filter { watched.contains($0.pair.base) })
    }
}

extension Settings {
    /// The settings with every `assets: all` rule's assets and every floored rule's ignored markets taken
    /// from `universe` (rules without either are returned as they are: a v2 configuration is unchanged).
    package func resolvingAssets(in universe: MarketUniverse, converter: CurrencyConverter) -> Settings {
        guard premium.rules.contains(where: { $0.selection.needsUniverse }) else { return self }
        var resolved = self
        for index in resolved.premium.rules.indices where resolved.premium.rules[index].selection.needsUniverse {
            let choice = WatchedAssets.choose(for: resolved.premium.rules[index], in: universe) { volume, currency in
                converter.toReference(volume, currency: currency)?.value
            }
            resolved.premium.rules[index].assets = choice.assets
            resolved.premium.rules[index].ignoredMarkets = choice.ignored
        }
        return resolved
    }

    /// Whether some rule's assets or markets come from the exchanges' market lists (v3).
    package var needsAssetUniverse: Bool { premium.rules.contains { $0.selection.needsUniverse } }

    /// Exchanges whose market list some rule needs (`assets: all` or `min_volume_24h`), enabled.
    package var universeExchanges: Set<ExchangeID> {
        var result: Set<ExchangeID> = []
        for rule in premium.rules where rule.selection.needsUniverse {
            for exchange in rule.exchanges where exchanges[exchange]?.enabled == true { result.insert(exchange) }
        }
        return result
    }
}
