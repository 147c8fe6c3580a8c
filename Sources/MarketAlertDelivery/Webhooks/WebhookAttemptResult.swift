import AsyncHTTPClient
import Foundation
import MarketAlertCore
import MarketAlertExchanges
import MarketAlertKit
import MarketAlertStorage
import NIOCore
import NIOHTTP1

/// What one POST of a notification came to.
package enum WebhookAttemptResult: Sendable, Equatable {
    /// 2xx.
    case delivered(status: Int)
    /// Worth retrying: 408, 429, 5xx, a 3xx (not followed), a timeout or a connection error. `retryAfter` is
    /// the server's minimum wait.
    case retryable(reason: String, retryAfter: Duration?)
    /// Retrying cannot help (any other 4xx, or a redirect a client followed): the notification is dropped.
    case permanent(reason: String)

    package var reason: String {
        switch self {
        case .delivered(let status): "HTTP \(status)"
        case .retryable(let reason, _), .permanent(let reason): reason
        }
    }
}

/// Turns an HTTP answer or a transport error into a `WebhookAttemptResult`.
package enum WebhookResponseClassifier {
    /// - Parameters:
    ///   - redirected: the client followed a redirect (only a client not made by `WebhookHTTPClient` does):
    ///     permanent, since the request already went elsewhere and would again.
    ///
    /// A 3xx answer is a failed attempt, retried later to the configured URL: the request is never re-sent to
    /// the `Location` (a signed POST must not reach another origin; Standard Webhooks treats 3xx as failure).
    /// Only the Location's host is named, never its path or query (a token may hide there).
    package static func classify(status: Int, headers: HTTPHeaders, body: Data, redirected: Bool, now: Date) -> WebhookAttemptResult {
        if redirected {
            return .permanent(reason: "HTTP \(status): redirected; redirects are not followed, update the URL")
        }
        if (300..<400).contains(status) {
            return .retryable(
                reason: "HTTP \(status) redirect to \(locationHost(headers)) not followed; update the URL if the receiver moved",
                retryAfter: nil)
        }
        if (200..<300).contains(status) { return .delivered(status: status) }
        let detail = HTTPAnswer.snippet(body)
        if status == 408 || status == 429 || (500..<600).contains(status) {
            let retryAfter = HTTPAnswer.retryAfter(headers, now: now) ?? (status == 429 ? bodyRetryAfter(body) : nil)
            let wait = retryAfter.map { ", retry after \(DurationText.format($0))" } ?? ""
            return .retryable(reason: "HTTP \(status)\(wait)\(detail)", retryAfter: retryAfter)
        }
        return .permanent(reason: "HTTP \(status)\(detail)")
    }

    /// Transport errors are all retryable: the receiver may be down, slow or unreachable for a while.
    package static func classify(error: any Error, timeout: Duration) -> WebhookAttemptResult {
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .writeTimeout:
                return .retryable(reason: "no answer within \(DurationText.format(timeout))", retryAfter: nil)
            case .connectTimeout:
                return .retryable(reason: "connect timed out", retryAfter: nil)
            case .remoteConnectionClosed:
                return .retryable(reason: "connection closed by the receiver", retryAfter: nil)
            case .cancelled:
                return .retryable(reason: "cancelled", retryAfter: nil)
            default:
                break
            }
        }
        if error is CancellationError { return .retryable(reason: "cancelled", retryAfter: nil) }
        return .retryable(reason: "request failed: \(error)", retryAfter: nil)
    }

    /// The host a redirect points to, for the log: `Location`'s host only (a relative one stays on the same host).
    package static func locationHost(_ headers: HTTPHeaders) -> String {
        guard let location = headers.first(name: "Location")?.trimmingCharacters(in: .whitespaces), !location.isEmpty else {
            return "nowhere (no Location)"
        }
        guard let url = URL(string: location) else { return "an unparsable Location" }
        guard let host = url.host, !host.isEmpty else { return "the same host" }
        return host
    }

    /// Telegram answers 429 with `{"parameters": {"retry_after": 5}}` and Discord with `{"retry_after": 1.5}`.
    package static func bodyRetryAfter(_ body: Data) -> Duration? {
        struct RateLimitBody: Decodable {
            package struct Parameters: Decodable {
                package var retryAfter: Double?
                package enum CodingKeys: String, CodingKey { case retryAfter = "retry_after" }
            }

            package var retryAfter: Double?
            package var parameters: Parameters?
            package enum CodingKeys: String, CodingKey { case retryAfter = "retry_after", parameters }
        }
        guard let decoded = try? JSONDecoder().decode(RateLimitBody.self, from: body),
              let seconds = decoded.parameters?.retryAfter ?? decoded.retryAfter,
              seconds.isFinite, seconds >= 0, seconds < 86_400 * 7
        else { return nil }
        return .milliseconds(Int64((seconds * 1000).rounded(.up)))
    }
}
