import Foundation

/// v3: how a premium rule picks its assets and markets. `assets: all` watches every asset with a market in
/// one of the rule's quotes on at least `minExchanges` of its exchanges (minus `excludeAssets`);
/// `min_volume_24h` ignores markets whose 24 h volume, in the reference currency, is below it (with a fixed
/// list too). The defaults (a fixed list, no volume floor) are a v2 rule's behaviour.
package struct AssetSelection: Sendable, Equatable {
    /// `assets: all`.
    package var all = false
    /// `min_exchanges` (with `assets: all`; default 2).
    package var minExchanges = 2
    /// `exclude_assets` (with `assets: all`), upper-cased.
    package var excludeAssets: Set<String> = []
    /// `min_volume_24h` in the reference currency (0: every market counts).
    package var minVolume24h: Double = 0

    package init() {}

    /// Whether the rule's assets or markets depend on the exchanges' market lists and volumes.
    package var needsUniverse: Bool { all || minVolume24h > 0 }
}

/// One market of one exchange (`binance` `BTC/USDT`): what a volume floor leaves out of a rule.
package struct ExchangeMarket: Sendable, Hashable {
    package var exchange: ExchangeID
    package var pair: MarketPair

    package init(_ exchange: ExchangeID, _ pair: MarketPair) {
        self.exchange = exchange
        self.pair = pair
    }
}
