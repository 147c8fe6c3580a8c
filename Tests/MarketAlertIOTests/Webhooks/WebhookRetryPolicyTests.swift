import Foundation
import MarketAlertCore
import MarketAlertIO
import NIOHTTP1
import Testing

@Suite("Webhook retry decisions and answer classification")
struct WebhookRetryPolicyTests {
    let policy = WebhookRetryPolicy()
    let created = Date(timeIntervalSince1970: 1_800_000_000)

    func retryDelay(afterAttempts attempts: Int, random: Double = 0.5, retryAfter: Duration? = nil) -> TimeInterval? {
        let now = created.addingTimeInterval(10)
        let decision = policy.decide(
            .retryable(reason: "HTTP 503", retryAfter: retryAfter), attempts: attempts, createdAt: created,
            maxAge: .seconds(86_400), now: now, random: random)
        guard case .retry(let at) = decision else { return nil }
        return at.timeIntervalSince(now)
    }

    @Test("backoff: 1 s doubling to 5 min")
    func exponentialBackoff() {
        let delays = (1...12).map { retryDelay(afterAttempts: $0) }
        #expect(delays == [1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300])
    }

    @Test("jitter spreads by ±20 % and never exceeds 5 min")
    func jitter() throws {
        #expect(abs(try #require(retryDelay(afterAttempts: 3, random: 0)) - 3.2) < 0.001)
        #expect(abs(try #require(retryDelay(afterAttempts: 3, random: 0.999_999)) - 4.8) < 0.001)
        #expect(try #require(retryDelay(afterAttempts: 20, random: 0.999_999)) <= 300)
        #expect(try #require(retryDelay(afterAttempts: 20, random: 0)) == 240)
    }

    @Test("Retry-After is a floor, even above the 5 min cap")
    func retryAfterFloor() {
        #expect(retryDelay(afterAttempts: 1, retryAfter: .seconds(120)) == 120)
        #expect(retryDelay(afterAttempts: 1, retryAfter: .seconds(900)) == 900)
        #expect(retryDelay(afterAttempts: 6, retryAfter: .seconds(5)) == 32)
    }

    @Test("a retry that would fall after max_age drops instead")
    func expiry() {
        let decision = policy.decide(
            .retryable(reason: "HTTP 503", retryAfter: nil), attempts: 4, createdAt: created, maxAge: .seconds(10),
            now: created.addingTimeInterval(7), random: 0.5)
        guard case .drop(let reason) = decision else {
            Issue.record("expected a drop, got \(decision)")
            return
        }
        #expect(reason.contains("max_age 10s") && reason.contains("4 attempts") && reason.contains("HTTP 503"))
        #expect(
            policy.decide(
                .retryable(reason: "x", retryAfter: nil), attempts: 3, createdAt: created, maxAge: .seconds(10),
                now: created.addingTimeInterval(3), random: 0.5) == .retry(at: created.addingTimeInterval(7)))
    }

    @Test("delivered and permanent outcomes")
    func terminalOutcomes() {
        #expect(policy.decide(.delivered(status: 204), attempts: 3, createdAt: created, maxAge: .seconds(10), now: created, random: 0) == .delivered)
        let permanent = policy.decide(.permanent(reason: "HTTP 400"), attempts: 1, createdAt: created, maxAge: .seconds(10), now: created, random: 0)
        #expect(permanent == .drop(reason: "permanent failure, not retried: HTTP 400"))
    }

    @Test("status classes: 2xx delivered; 408, 429, 5xx and 3xx retried; other 4xx and followed redirects permanent")
    func statusClassification() {
        func classify(_ status: Int, redirected: Bool = false) -> WebhookAttemptResult {
            WebhookResponseClassifier.classify(status: status, headers: [:], body: Data(), redirected: redirected, now: created)
        }
        for status in [200, 201, 202, 204] { #expect(classify(status) == .delivered(status: status)) }
        for status in [408, 429, 500, 502, 503, 504] {
            #expect(classify(status) == .retryable(reason: "HTTP \(status)", retryAfter: nil))
        }
        for status in [400, 401, 403, 404, 410, 413, 422] { #expect(classify(status) == .permanent(reason: "HTTP \(status)")) }
        // A 3xx is not followed: a failed attempt, retried to the configured URL, naming only the Location's host.
        for status in [301, 302, 303, 307, 308] {
            let result = WebhookResponseClassifier.classify(
                status: status, headers: HTTPHeaders([("Location", "https://user:pw@elsewhere.example:8443/steal?token=s3cr3t")]),
                body: Data(), redirected: false, now: created)
            #expect(result == .retryable(
                reason: "HTTP \(status) redirect to elsewhere.example not followed; update the URL if the receiver moved", retryAfter: nil))
            #expect(!result.reason.contains("s3cr3t") && !result.reason.contains("steal") && !result.reason.contains("pw"))
        }
        #expect(classify(307).reason.contains("nowhere (no Location)"))
        guard case .permanent = classify(200, redirected: true) else {
            Issue.record("a followed redirect is not a delivery")
            return
        }
    }

    @Test("Retry-After in seconds or as an HTTP date; Telegram's and Discord's body hints on 429")
    func retryAfterSources() {
        let seconds = WebhookResponseClassifier.classify(
            status: 429, headers: HTTPHeaders([("Retry-After", "120")]), body: Data(), redirected: false, now: created)
        #expect(seconds == .retryable(reason: "HTTP 429, retry after 2m", retryAfter: .seconds(120)))
        let date = WebhookResponseClassifier.classify(
            status: 503, headers: HTTPHeaders([("Retry-After", "Fri, 15 Jan 2027 08:01:40 GMT")]), body: Data(),
            redirected: false, now: Date(timeIntervalSince1970: 1_800_000_000))  // 2027-01-15T08:00:00Z
        #expect(date == .retryable(reason: "HTTP 503, retry after 1m40s", retryAfter: .seconds(100)))
        let telegram = WebhookResponseClassifier.classify(
            status: 429, headers: [:],
            body: Data(#"{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 7","parameters":{"retry_after":7}}"#.utf8),
            redirected: false, now: created)
        guard case .retryable(_, let telegramWait) = telegram else {
            Issue.record("telegram 429 should be retryable")
            return
        }
        #expect(telegramWait == .seconds(7))
        let discord = WebhookResponseClassifier.classify(
            status: 429, headers: [:], body: Data(#"{"message":"You are being rate limited.","retry_after":1.5,"global":false}"#.utf8),
            redirected: false, now: created)
        guard case .retryable(_, let discordWait) = discord else {
            Issue.record("discord 429 should be retryable")
            return
        }
        #expect(discordWait == .milliseconds(1500))
    }
}
