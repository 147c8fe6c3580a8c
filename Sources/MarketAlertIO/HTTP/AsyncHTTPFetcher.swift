import AsyncHTTPClient
import Foundation
import MarketAlertCore
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// The daemon's `HTTPFetcher`: async-http-client, with the whole exchange (head and body) under one deadline
/// and the body under a cap, gathered on the event loop (`ResponseBodyCollector` says why not `async`).
package struct AsyncHTTPFetcher: HTTPFetcher {
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
        _ url: URL, source: String, headers: [(String, String)], timeout: Duration,
        explainError: (_ status: Int, _ body: Data) -> SourceError?
    ) async throws(SourceError) -> FetchedBody {
        var head = HTTPHeaders()
        head.add(name: "Accept", value: "application/json")
        head.add(name: "User-Agent", value: "marketalertd/\(MarketAlertVersion.current)")
        for (name, value) in headers { head.add(name: name, value: value) }
        let answer: ResponseBodyCollector.Answer
        do {
            let request = try HTTPClient.Request(url: url, method: .GET, headers: head)
            // The deadline covers the whole exchange, body included (a body that drips must not hold a
            // poller): async-http-client's callback API fails the request when it passes, in any state.
            let task = client.execute(
                request: request, delegate: ResponseBodyCollector(limit: maxBodyBytes),
                eventLoop: .delegate(on: client.eventLoopGroup.any()),
                deadline: .now() + .nanoseconds(Int64(min(max(timeout.seconds, 0), 86_400) * 1e9)))
            answer = try await withTaskCancellationHandler {
                try await task.futureResult.get()
            } onCancel: {
                task.cancel()
            }
        } catch {
            throw Self.classify(error, source: source, url: url)
        }
        let response = answer.head
        let body = answer.body
        let status = Int(response.status.code)
        // The body's bytes as they are: a copy of each answer (up to a megabyte a second polling) bought nothing.
        let data = Data(buffer: body, byteTransferStrategy: .noCopy)
        guard (200..<300).contains(status) else {
            if status == 429 || status == 418 {
                let retryAfter = HTTPAnswer.retryAfter(response.headers, now: clock.now())
                let wait = retryAfter.map { ", retry after \(Int($0.seconds))s" } ?? ""
                throw SourceError(
                    source: source, kind: .rateLimited(status: status, retryAfter: retryAfter),
                    message: "HTTP \(status) rate limited\(wait)")
            }
            if let explained = explainError(status, data) { throw explained }
            // The status only: an error body may echo a credential in any encoding (it stays in `upstream`).
            throw SourceError(
                source: source, kind: .http(status: status), message: "HTTP \(status) \(response.status.reasonPhrase)",
                upstream: HTTPAnswer.excerpt(data))
        }
        if HTTPAnswer.looksLikeHTML(data) {
            throw SourceError(
                source: source, kind: .decode, message: "HTTP \(status) with an HTML page instead of JSON", upstream: HTTPAnswer.excerpt(data))
        }
        return FetchedBody(status: status, headers: response.headers, body: data, receivedAt: clock.now())
    }

    static func classify(_ error: any Error, source: String, url: URL) -> SourceError {
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
        if error is ResponseBodyCollector.TooLarge {
            return SourceError(source: source, kind: .decode, message: "response body too large")
        }
        if error is CancellationError || (error as? HTTPClientError) == .cancelled {
            return SourceError(source: source, kind: .connection, message: "cancelled")
        }
        return SourceError(source: source, kind: .connection, message: "request failed: \(error)")
    }
}
