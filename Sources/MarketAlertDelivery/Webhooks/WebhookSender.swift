import AsyncHTTPClient
import Foundation
import MarketAlertCore
import MarketAlertKit
import MarketAlertStorage
import NIOCore
import NIOHTTP1

/// POSTs one queued notification and classifies the answer. Never throws; the result says what happened.
/// The whole attempt (answer head and body) is bounded by the webhook's `timeout`, in real time.
package struct WebhookSender: Sendable {
    package let client: HTTPClient
    /// Only an error snippet or a rate-limit hint is read from an answer.
    package var maxResponseBytes = 64 * 1024

    package init(client: HTTPClient) { self.client = client }

    /// - Parameter attemptAt: the attempt's time (the injected clock), sent as `webhook-timestamp`.
    package func send(_ row: WebhookOutboxRow, to target: WebhookTarget, attemptAt: Date) async -> WebhookAttemptResult {
        var request = HTTPClientRequest(url: target.url.absoluteString)
        request.method = .POST
        var body = row.body
        if target.format == .ntfy {
            // The queued row is an `NtfyMessage`: its text is the body, the rest headers.
            guard let message = try? NtfyMessage.decode(row.body) else {
                return .permanent(reason: "the queued ntfy notification cannot be read")
            }
            body = Data(message.message.utf8)
            request.headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
            for header in message.headers { request.headers.add(name: header.name, value: header.value) }
        } else {
            request.headers.add(name: "Content-Type", value: "application/json")
        }
        if let token = target.bearerToken { request.headers.add(name: "Authorization", value: "Bearer \(token.value)") }
        request.headers.add(name: "User-Agent", value: "marketalertd/\(MarketAlertVersion.current)")
        for (name, value) in WebhookSignature.headers(id: row.eventID, attemptAt: attemptAt, body: body, key: target.signingKey) {
            request.headers.add(name: name, value: value)
        }
        request.body = .bytes(ByteBuffer(bytes: body))
        let start = ContinuousClock.now
        let timeout = target.timeout
        do {
            let response = try await client.execute(request, timeout: .nanoseconds(Int64(timeout.seconds * 1e9)))
            let status = Int(response.status.code)
            let remaining = timeout - (ContinuousClock.now - start)
            // The status decides; the body only adds detail. A 2xx whose body stalls is still delivered.
            let body = (try? await collect(response.body, within: remaining)) ?? Data()
            return WebhookResponseClassifier.classify(
                status: status, headers: response.headers, body: body, redirected: response.history.count > 1,
                now: attemptAt)
        } catch {
            return WebhookResponseClassifier.classify(error: error, timeout: timeout)
        }
    }

    /// The answer's body, up to `maxResponseBytes` (the rest is ignored); throws when it does not end in time.
    private func collect(_ body: HTTPClientResponse.Body, within remaining: Duration) async throws -> Data {
        let limit = maxResponseBytes
        return try await RequestDeadline.run(within: remaining) {
            var data = Data()
            for try await chunk in body {
                if data.count < limit { data.append(contentsOf: chunk.readableBytesView.prefix(limit - data.count)) }
            }
            return data
        }
    }
}
