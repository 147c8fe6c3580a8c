import Foundation
import MarketAlertCore
import MarketAlertKit

/// Polls one exchange's status endpoint through the daemon's HTTP client: one GET (signed for a private
/// endpoint), decoded down to the assets asked for. Failures name the source `<exchange>/transfers`.
package struct TransferStatusSource: Sendable {
    package let adapter: TransferStatusAdapter
    package let settings: ExchangeSettings
    package let fetcher: HTTPFetcher
    let credentials: TransferCredentials?
    let signer: TransferSigner

    package init(
        adapter: TransferStatusAdapter, settings: ExchangeSettings, fetcher: HTTPFetcher, credentials: TransferCredentials?,
        signer: TransferSigner
    ) {
        self.adapter = adapter
        self.settings = settings
        self.fetcher = fetcher
        self.credentials = credentials
        self.signer = signer
    }

    /// The source name in health, alerts and metrics.
    package var name: String { TransferDecoding.source(adapter.exchange) }

    package func fetch(assets: Set<String>) async throws(SourceError) -> TransferReport {
        do {
            let request = try adapter.request(credentials, fetcher.clock.now(), signer)
            let url = try ExchangeEndpoint.url(settings.baseURL, path: request.path, query: request.query, source: name)
            let answer = try await fetcher.get(url, source: name, headers: request.headers, timeout: settings.timeout)
            return try adapter.decode(answer.body, assets, answer.receivedAt)
        } catch {
            // An upstream may echo what it was sent (the key in a header, a signed query) in its error body.
            throw credentials.map { $0.scrubbed(error) } ?? error
        }
    }
}
