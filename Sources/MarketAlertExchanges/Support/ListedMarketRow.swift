import MarketAlertCore
import MarketAlertKit

extension ListedMarket {
    /// A market-list row as the exchanges send it (every field may be missing): `nil` unless the market id,
    /// asset and quote are all present, non-empty and of a sane length (at most 40 characters). Asset and
    /// quote are upper-cased.
    package static func row(market: String?, asset: String?, quote: String?) -> ListedMarket? {
        guard let market, let asset, let quote else { return nil }
        for text in [market, asset, quote] where text.isEmpty || text.count > 40 { return nil }
        return ListedMarket(market: market, asset: asset.uppercased(), quote: quote.uppercased())
    }
}
