import AsyncHTTPClient
import MarketAlertKit
import MarketAlertStorage
import NIOCore

/// The HTTP client configuration for webhook delivery, separate from the pollers' client.
///
/// Webhooks never follow redirects: a followed 307/308 re-sends the whole signed request (body and
/// `webhook-*` headers) to another origin, and a followed 301/302/303 sends a GET there with the signature
/// headers. AsyncHTTPClient follows redirects by default and only per client, so webhook delivery gets a
/// client of its own with `.disallow`; a 3xx then reaches `WebhookResponseClassifier` as the answer and is a
/// failed attempt, retried later to the configured URL.
package enum WebhookHTTPClient {
    package static func configuration() -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.timeout = .init(connect: .seconds(5), read: .seconds(30))
        // Receivers' answers are only read for an error snippet or a rate-limit hint (64 KiB at most).
        configuration.decompression = .enabled(limit: .ratio(40))
        configuration.connectionPool = .init(idleTimeout: .seconds(60))
        return configuration
    }

    /// A webhook client on the shared event loop group; the caller shuts it down.
    package static func make() -> HTTPClient {
        HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration())
    }
}
