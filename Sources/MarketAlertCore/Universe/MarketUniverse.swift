import Foundation

/// One market as an exchange's market list and bulk tickers describe it: its pair and its 24 h volume in
/// the quote currency (nil: the exchange did not say).
package struct UniverseMarket: Sendable, Equatable {
    package var pair: MarketPair
    package var volume24h: Double?

    package init(_ pair: MarketPair, volume24h: Double?) {
        self.pair = pair
        self.volume24h = volume24h
    }
}

/// v3 `assets: all`: what every exchange lists, as last read (an exchange missing here has not been read
/// yet, or its list cannot be read; it contributes no market).
package struct MarketUniverse: Sendable, Equatable {
    package private(set) var markets: [ExchangeID: [UniverseMarket]] = [:]

    package init() {}

    /// Replaces an exchange's markets. Duplicates keep the first; a volume that is NaN, infinite or
    /// negative is unknown, never a number (a bad row cannot make a market look liquid).
    package mutating func set(_ exchange: ExchangeID, _ list: [UniverseMarket]) {
        var seen: Set<MarketPair> = []
        var kept: [UniverseMarket] = []
        kept.reserveCapacity(list.count)
        for var market in list where !market.pair.base.isEmpty && !market.pair.quote.isEmpty && seen.insert(market.pair).inserted {
            if let volume = market.volume24h, !volume.isFinite || volume < 0 { market.volume24h = nil }
            kept.append(market)
        }
        markets[exchange] = kept
    }

    /// Whether the exchange's markets are known.
    package func knows(_ exchange: ExchangeID) -> Bool { markets[exchange] != nil }
}
