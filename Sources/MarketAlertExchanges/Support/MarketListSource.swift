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

/// The market-list sources the daemon has: each exchange's descriptor names its own (`marketList`).
package enum MarketListSources {
    package static func make(
        _ settings: ExchangeSettings, fetcher: HTTPFetcher, registry: ExchangeRegistry = .standard
    ) -> (any MarketListSource)? {
        registry[settings.id].map { $0.marketList(ExchangeClient(exchange: settings.id, settings: settings, fetcher: fetcher)) }
    }

    /// The `.empty` error of a list without markets.
    static func emptyError(_ exchange: ExchangeID, path: String) -> SourceError {
        SourceError(source: exchange.rawValue, kind: .empty, message: "\(path) listed no market (a source failure, not a delisting)")
    }
}
