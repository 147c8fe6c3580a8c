extension Settings {
    /// Exchanges some premium rule uses, enabled, with the pairs to ask each for (rule assets × quotes).
    package var watchedPairsByExchange: [ExchangeID: Set<MarketPair>] {
        var result: [ExchangeID: Set<MarketPair>] = [:]
        for rule in premium.rules {
            for exchange in rule.exchanges where exchanges[exchange]?.enabled == true {
                for asset in rule.assets {
                    for quote in rule.quotes { result[exchange, default: []].insert(MarketPair(base: asset, quote: quote)) }
                }
            }
        }
        // v3: the KRW-USDT markets USDT/KRW comes from, whether or not a rule lists USDT as an asset.
        for exchange in fx.usdtKrw?.exchanges ?? [] where exchanges[exchange]?.enabled == true {
            result[exchange, default: []].insert(USDTKRWSettings.pair)
        }
        return result
    }

    /// Fiat currencies that need a `USD/<currency>` rate: non-USD fiat quotes of rules, a non-USD reference,
    /// and the quote side of FX alerts.
    package var neededFXCurrencies: Set<String> {
        var result: Set<String> = []
        for rule in premium.rules {
            for quote in rule.quotes {
                // Conversions go through USD, so every other fiat needs its USD/<fiat> rate.
                result.insert(premium.stablecoinsAs[quote] ?? quote)
            }
        }
        if premium.reference != "USD", !premium.rules.isEmpty { result.insert(premium.reference) }
        for alert in fx.alerts where alert.base == "USD" { result.insert(alert.quote) }
        // v3: the tether premium is against the official USD/KRW.
        if !fx.tetherAlerts.isEmpty { result.insert("KRW") }
        result.remove("USD")
        return result
    }
}
