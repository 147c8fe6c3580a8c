import MarketAlertCore
import MarketAlertKit

/// Kraken's names for assets and pairs.
///
/// Kraken calls BTC `XBT` and DOGE `XDG`, and its older pairs carry `X` (crypto) / `Z` (fiat) prefixed
/// asset codes: asking for `XBTUSD` answers under the key `XXBTZUSD`, `ETHUSD` under `XETHZUSD`,
/// `USDTUSD` under `USDTZUSD`, newer pairs under their plain name (`SOLUSD`). Response keys are therefore
/// matched to the watched pairs by every spelling Kraken uses, never by position.
package enum KrakenPairNames {
    /// Kraken's own code for a normalized asset (`BTC` → `XBT`).
    package static func assetCode(_ asset: String) -> String {
        let upper = asset.uppercased()
        return aliases[upper] ?? upper
    }

    /// Kraken's code as ours: `XBT` → `BTC`, `XDG` → `DOGE`, others upper-cased and unchanged.
    package static func ourAsset(_ code: String) -> String {
        let upper = code.uppercased()
        return aliases.first { $0.value == upper }?.key ?? upper
    }

    /// The pair name to request (`XBTUSD`).
    package static func requestName(_ pair: MarketPair) -> String { assetCode(pair.base) + assetCode(pair.quote) }

    /// Every key under which Kraken may answer for `pair`.
    package static func spellings(_ pair: MarketPair) -> Set<String> {
        var result: Set<String> = []
        for base in assetSpellings(pair.base) {
            for quote in assetSpellings(pair.quote) { result.insert(base + quote) }
        }
        return result
    }

    /// Response key → watched pair, for every spelling that belongs to exactly one watched pair.
    package static func index(_ pairs: Set<MarketPair>) -> [String: MarketPair] {
        var index: [String: MarketPair] = [:]
        var ambiguous: Set<String> = []
        for pair in pairs {
            for spelling in spellings(pair) {
                if let existing = index[spelling], existing != pair { ambiguous.insert(spelling) }
                index[spelling] = pair
            }
        }
        for spelling in ambiguous { index[spelling] = nil }
        return index
    }

    private static func assetSpellings(_ asset: String) -> Set<String> {
        let upper = asset.uppercased()
        let code = assetCode(upper)
        return [upper, code, "X" + code, "Z" + code]
    }

    private static let aliases = ["BTC": "XBT", "DOGE": "XDG"]
}
