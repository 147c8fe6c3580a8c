import Foundation
import MarketAlertCore
import MarketAlertKit

/// v3 `listings:`: one exchange's whole market list, one request per poll. A list with no market at all is
/// `.empty` (a source failure, never "everything was delisted"); a body cut short is `.decode`.
package protocol MarketListSource: Sendable {
    var exchange: ExchangeID { get }
    func fetchMarkets() async throws(SourceError) -> [ListedMarket]
}

extension MarketListSource {
    /// One poll as a value.
    package func pollMarkets() async -> Result<[ListedMarket], SourceError> {
        do throws(SourceError) {
            return .success(try await fetchMarkets())
        } catch {
            return .failure(error)
        }
    }
}

/// The market-list sources the daemon has, by exchange (`ListingSettings.supportedExchanges`).
package enum MarketListSources {
    package static func make(_ settings: ExchangeSettings, fetcher: HTTPFetcher) -> (any MarketListSource)? {
        let client = ExchangeClient(exchange: settings.id, settings: settings, fetcher: fetcher)
        switch settings.id {
        case .upbit: return UpbitMarketList(client: client)
        case .bithumb: return BithumbMarketList(client: client)
        case .binance: return BinanceMarketList(client: client)
        default: return nil
        }
    }

    /// The `.empty` error of a list without markets.
    static func emptyError(_ exchange: ExchangeID, path: String) -> SourceError {
        SourceError(source: exchange.rawValue, kind: .empty, message: "\(path) listed no market (a source failure, not a delisting)")
    }
}
