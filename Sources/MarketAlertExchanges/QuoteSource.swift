import Foundation
import MarketAlertCore
import MarketAlertKit

/// One exchange's public ticker API. Each `fetchQuotes` call makes one bulk request that serves every
/// watched pair, and returns only the watched pairs it found (normalized; prices validated).
package protocol QuoteSource: Sendable {
    var exchange: ExchangeID { get }
    func fetchQuotes(for pairs: Set<MarketPair>) async throws(SourceError) -> [Quote]
}

extension QuoteSource {
    /// One poll as a value: the quotes, or the source's error.
    package func poll(_ pairs: Set<MarketPair>) async -> Result<[Quote], SourceError> {
        do throws(SourceError) {
            return .success(try await fetchQuotes(for: pairs))
        } catch {
            return .failure(error)
        }
    }
}
