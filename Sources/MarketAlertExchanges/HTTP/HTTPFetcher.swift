import Foundation
import MarketAlertCore
import MarketAlertKit
import NIOHTTP1

/// A successful (2xx) HTTP answer.
package struct FetchedBody: Sendable {
    package var status: Int
    package var headers: HTTPHeaders
    package var body: Data
    /// When the response was received (from the injected clock).
    package var receivedAt: Date

    package init(status: Int, headers: HTTPHeaders, body: Data, receivedAt: Date) {
        self.status = status
        self.headers = headers
        self.body = body
        self.receivedAt = receivedAt
    }
}

/// GET requests for pollers (exchange REST sources, FX providers, TWSE): one timeout per request (head and
/// body), a size cap, and every failure turned into a `SourceError` that names the source (HTTP status,
/// 429/418 with Retry-After, HTML error pages, timeouts). The exchanges know only this seam; the daemon's
/// implementation is `AsyncHTTPFetcher` (async-http-client), so the decoders build without an HTTP stack.
package protocol HTTPFetcher: Sendable {
    /// The injected clock: `receivedAt` of every answer, and the sources' own timing.
    var clock: any DaemonClock { get }

    /// - Parameter explainError: given the status and body of a non-2xx answer that is not rate limiting, may
    ///   return a more precise error (an exchange's own error envelope sent with HTTP 400/404 becomes `.api`).
    func get(
        _ url: URL, source: String, headers: [(String, String)], timeout: Duration,
        explainError: (_ status: Int, _ body: Data) -> SourceError?
    ) async throws(SourceError) -> FetchedBody
}

extension HTTPFetcher {
    package func get(
        _ url: URL, source: String, headers: [(String, String)] = [], timeout: Duration
    ) async throws(SourceError) -> FetchedBody {
        try await get(url, source: source, headers: headers, timeout: timeout) { _, _ in nil }
    }

    package func get(
        _ url: URL, source: String, timeout: Duration, explainError: (_ status: Int, _ body: Data) -> SourceError?
    ) async throws(SourceError) -> FetchedBody {
        try await get(url, source: source, headers: [], timeout: timeout, explainError: explainError)
    }
}

/// How an HTTP answer is read, shared by every client of the daemon (pollers and webhooks).
package enum HTTPAnswer {
    /// `Retry-After` as seconds or as an HTTP date.
    package static func retryAfter(_ headers: HTTPHeaders, now: Date) -> Duration? {
        guard let value = headers.first(name: "Retry-After")?.trimmingCharacters(in: .whitespaces) else { return nil }
        if let seconds = Int(value), seconds >= 0 { return .seconds(seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return .seconds(max(0, Int(date.timeIntervalSince(now).rounded(.up))))
    }

    package static func looksLikeHTML(_ data: Data) -> Bool {
        guard let first = data.first(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }) else { return false }
        return first == UInt8(ascii: "<")
    }

    /// `snippet` without its separator, nil for an empty body (`SourceError.upstream`).
    package static func excerpt(_ data: Data) -> String? {
        data.isEmpty ? nil : String(snippet(data).dropFirst(2))
    }

    /// Up to 120 printable characters of a body, for an error line.
    package static func snippet(_ data: Data) -> String {
        guard !data.isEmpty else { return "" }
        let text = String(decoding: data.prefix(240), as: UTF8.self)
            .replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "\r", with: " ")
        return ": " + String(text.prefix(120))
    }
}
