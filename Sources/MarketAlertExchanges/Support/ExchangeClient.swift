import Foundation
import MarketAlertCore
import MarketAlertKit

/// How an exchange source reaches its API: the exchange's settings (base URL, timeout) and the shared fetcher,
/// with the one request shape every source uses, a GET under the base URL whose 4xx bodies the exchange's
/// own error format may explain.
package struct ExchangeClient: Sendable {
    package let exchange: ExchangeID
    package let settings: ExchangeSettings
    package let fetcher: HTTPFetcher

    /// `apiError` reads the body of a 4xx answer (an exchange's error envelope) into an `.api` error; when it
    /// returns `nil` the answer is a plain `.http` error.
    package typealias APIErrorReader = (_ status: Int, _ body: Data) -> SourceError?

    /// GET `path` (with `query`) under the configured base URL.
    package func get(_ path: String, query: [(String, String)] = [], apiError: APIErrorReader) async throws(SourceError) -> FetchedBody {
        let source = exchange.rawValue
        let url = try ExchangeEndpoint.url(settings.baseURL, path: path, query: query, source: source)
        return try await fetcher.get(url, source: source, timeout: settings.timeout) { status, body in
            (400..<500).contains(status) ? apiError(status, body) : nil
        }
    }

    /// One GET of a ticker list that serves every watched pair, decoded down to the watched pairs
    /// (no request when nothing is watched).
    package func fetchQuotes(
        for pairs: Set<MarketPair>, path: String, query: [(String, String)] = [], apiError: APIErrorReader,
        decode: (_ body: Data, _ watched: Set<MarketPair>, _ receivedAt: Date) throws(SourceError) -> [Quote]
    ) async throws(SourceError) -> [Quote] {
        guard !pairs.isEmpty else { return [] }
        let body = try await get(path, query: query, apiError: apiError)
        return try decode(body.body, pairs, body.receivedAt)
    }

    /// The current time of the fetcher's clock.
    package func now() -> Date { fetcher.clock.now() }
}
