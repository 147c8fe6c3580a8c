import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// A receiver answering 3xx: the signed request never reaches the Location's origin; the attempt fails and
/// is retried later to the configured URL (time on a ManualClock, jitter fixed).
@Suite("Webhook redirects are never followed", .timeLimit(.minutes(1)))
struct WebhookRedirectTests {
    @Test("307 and 302 to another origin: nothing arrives there, the attempt fails naming the host only, the retry goes to the configured URL",
          arguments: [307, 302, 308, 301])
    func redirectIsAFailedAttempt(status: Int) async throws {
        let harness = try await OutboxHarness()
        let elsewhere = try await MockHTTPServer()
        elsewhere.route("/steal", response: .json("{}"))
        let location = "http://localhost:\(elsewhere.port)/steal?token=leaked"
        harness.receiver.script([.status(status, headers: [("Location", location)])], then: .status(200))
        let key = try WebhookSigningKey(secret: "whsec_" + Data(repeating: 7, count: 32).base64EncodedString())
        let outbox = harness.outbox([harness.target(key: key)])
        let run = Task { await outbox.run() }
        var reports = harness.reports.stream.makeAsyncIterator()
        let event = SampleEvents.premium()
        let start = harness.clock.now()

        try await outbox.deliver(event)
        guard case .retrying(_, let id, 1, let next, let error) = try await reports.expectNext() else {
            Issue.record("a \(status) should be a failed, retried attempt")
            return
        }
        #expect(id == event.id)
        #expect(next == start.addingTimeInterval(1))
        #expect(error.contains("HTTP \(status) redirect to localhost"), "\(error)")
        #expect(!error.contains("steal") && !error.contains("leaked"), "only the host is named: \(error)")
        #expect(elsewhere.requests.isEmpty, "the redirect target got \(elsewhere.requests.map { "\($0.method) \($0.path)" })")
        let warning = harness.logs.all.first { $0.level == .warning }
        #expect(warning?.message.contains("redirect to localhost") == true)
        #expect(warning.map { !$0.text.contains("leaked") } ?? false)

        // The retry goes to the configured URL, with the same id, and succeeds there.
        try await harness.clock.waitForSleeper(.webhookDelivery)
        await harness.clock.advance(by: .seconds(1))
        #expect(try await reports.expectNext() == .delivered(webhook: "ops", eventID: event.id, attempts: 2))
        #expect(harness.receiver.requests.map { $0.header("webhook-id") } == [event.id, event.id])
        #expect(harness.receiver.requests.allSatisfy { $0.method == "POST" })
        #expect(elsewhere.requests.isEmpty)
        run.cancel()
        await run.value
        await harness.shutdown()
        await elsewhere.shutdown()
    }
}
