import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// A successful (2xx) HTTP answer.
package struct FetchedBody: Sendable {
    package var status: Int
    package var headers: HTTPHeaders
    package var body: Data
    /// When the response was received (from the injected clock).
    package var receivedAt: Date
}

/// GET requests for pollers: one timeout per request (head and body), a size cap, and every failure turned into a
/// `SourceError` that names the source (HTTP status, 429/418 with Retry-After, HTML error pages, timeouts).
package struct HTTPFetcher: Sendable {
    package let client: HTTPClient
    package let clock: any DaemonClock
    /// Bodies larger than this are refused (the full Binance 24hr list is about 1 MB).
    package var maxBodyBytes = 16 * 1024 * 1024

    package init(client: HTTPClient, clock: any DaemonClock) {
        self.client = client
        self.clock = clock
    }

    /// - Parameter explainError: given the status and body of a non-2xx answer that is not rate limiting, may
    ///   return a more precise error (an exchange's own error envelope sent with HTTP 400/404 becomes `.api`).
    package func get(
        _ url: URL, source: String, headers: [(String, String)] = [], timeout: Duration,
        explainError: (_ status: Int, _ body: Data) -> SourceError? = { _, _ in nil }
    ) async throws(SourceError) -> FetchedBody {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .GET
        request.headers.add(name: "Accept", value: "application/json")
        request.headers.add(name: "User-Agent", value: "marketalertd/\(MarketAlertVersion.current)")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response: HTTPClientResponse
        let body: ByteBuffer
        do {
            // The timeout covers the whole exchange, body included (a body that drips must not hold a poller).
            (response, body) = try await RequestDeadline.run(within: timeout) { [client, maxBodyBytes, request] in
                let response = try await client.execute(request, timeout: .nanoseconds(Int64(timeout.seconds * 1e9)))
                return (response, try await response.body.collect(upTo: maxBodyBytes))
            }
        } catch {
            throw Self.classify(error, source: source, url: url)
        }
        let status = Int(response.status.code)
        let data = Data(body.readableBytesView)
        guard (200..<300).contains(status) else {
            if status == 429 || status == 418 {
                let retryAfter = Self.retryAfter(response.headers, now: clock.now())
                let wait = retryAfter.map { ", retry after \(Int($0.seconds))s" } ?? ""
                throw SourceError(
                    source: source, kind: .rateLimited(status: status, retryAfter: retryAfter),
                    message: "HTTP \(status) rate limited\(wait)")
            }
            if let explained = explainError(status, data) { throw explained }
            // The status only: an error body may echo a credential in any encoding (it stays in `upstream`).
            throw SourceError(
                source: source, kind: .http(status: status), message: "HTTP \(status) \(response.status.reasonPhrase)",
                upstream: Self.excerpt(data))
        }
        if Self.looksLikeHTML(data) {
            throw SourceError(
                source: source, kind: .decode, message: "HTTP \(status) with an HTML page instead of JSON", upstream: Self.excerpt(data))
        }
        return FetchedBody(status: status, headers: response.headers, body: data, receivedAt: clock.now())
    }

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

    static func looksLikeHTML(_ data: Data) -> Bool {
        guard let first = data.first(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }) else { return false }
        return first == UInt8(ascii: "<")
    }

    /// `snippet` without its separator, nil for an empty body (`SourceError.upstream`).
    static func excerpt(_ data: Data) -> String? {
        data.isEmpty ? nil : String(snippet(data).dropFirst(2))
    }

    /// Up to 120 printable characters of a body, for an error line.
    static func snippet(_ data: Data) -> String {
        guard !data.isEmpty else { return "" }
        let text = String(decoding: data.prefix(240), as: UTF8.self)
            .replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "\r", with: " ")
        return ": " + String(text.prefix(120))
    }

    static func classify(_ error: any Error, source: String, url: URL) -> SourceError {
        if error is RequestDeadline.Exceeded {
            return SourceError(source: source, kind: .timeout, message: "timed out (\(url.host ?? ""))")
        }
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .connectTimeout, .writeTimeout:
                return SourceError(source: source, kind: .timeout, message: "timed out (\(url.host ?? ""))")
            case .remoteConnectionClosed:
                return SourceError(source: source, kind: .connection, message: "connection closed by \(url.host ?? "")")
            default:
                break
            }
        }
        if error is NIOTooManyBytesError {
            return SourceError(source: source, kind: .decode, message: "response body too large")
        }
        if error is CancellationError {
            return SourceError(source: source, kind: .connection, message: "cancelled")
        }
        return SourceError(source: source, kind: .connection, message: "request failed: \(error)")
    }
}

/// The daemon's version, shown by `--version` and sent as the User-Agent.
package enum MarketAlertVersion {
    package static let current = "0.1.0"
}
