import Foundation
import MarketAlertCore

/// Builds the `QuoteSource` for a configured exchange.
package enum QuoteSources {
    package static func make(_ settings: ExchangeSettings, fetcher: HTTPFetcher) -> any QuoteSource {
        switch settings.id {
        case .binance: BinanceTickerSource(settings: settings, fetcher: fetcher)
        case .bybit: BybitTickerSource(settings: settings, fetcher: fetcher)
        case .bitget: BitgetTickerSource(settings: settings, fetcher: fetcher)
        case .okx: OKXTickerSource(settings: settings, fetcher: fetcher)
        case .upbit: UpbitTickerSource(settings: settings, fetcher: fetcher)
        case .bithumb: BithumbTickerSource(settings: settings, fetcher: fetcher)
        case .kraken: KrakenTickerSource(settings: settings, fetcher: fetcher)
        case .coinbase: CoinbaseTickerSource(settings: settings, fetcher: fetcher)
        }
    }
}
