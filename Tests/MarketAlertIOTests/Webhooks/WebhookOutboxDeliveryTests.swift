import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// Delivery against a real receiver on 127.0.0.1 with time on a ManualClock (jitter fixed at zero).
@Suite("Webhook outbox delivery", .timeLimit(.minutes(1)))
struct WebhookOutboxDeliveryTests {
    @Test("receiver down (503) then up: all arrive once, in order, after backoff 1 s, 2 s, 4 s on the clock")
    func downThenUp() async throws {
        let harness = try await OutboxHarness()
        harness.receiver.script([.status(503), .status(503), .status(503)], then: .status(200))
        let outbox = harness.outbox([harness.target()])
        let run = Task { await outbox.run() }
        var arrivals = harness.receiver.arrivals.makeAsyncIterator()
        var reports = harness.reports.stream.makeAsyncIterator()
        let events = [SampleEvents.premium(), SampleEvents.fx(), SampleEvents.source()]
        let start = harness.clock.now()

        for event in events { try await outbox.deliver(event) }
        #expect(try await outbox.pendingCount(webhook: "ops") == 3)

        var elapsed: TimeInterval = 0
        for (index, wait) in [1.0, 2.0, 4.0].enumerated() {
            let request = try await arrivals.expectNext()
            #expect(request.header("webhook-id") == events[0].id)
            #expect(request.header("webhook-timestamp") == String(Int(start.addingTimeInterval(elapsed).timeIntervalSince1970)))
            let next = start.addingTimeInterval(elapsed + wait)
            #expect(
                try await reports.expectNext()
                    == .retrying(webhook: "ops", eventID: events[0].id, attempts: index + 1, nextAttemptAt: next, error: "HTTP 503"))
            try await harness.clock.waitForSleeper(.webhookDelivery, at: next)
            #expect(harness.clock.pendingDeadlines == [next])
            await harness.clock.advance(by: .seconds(wait))
            elapsed += wait
        }
        for (index, event) in events.enumerated() {
            let request = try await arrivals.expectNext()
            #expect(request.header("webhook-id") == event.id)
            #expect(request.body == (try AlertEvent.makeEncoder().encode(event)))
            #expect(try await reports.expectNext() == .delivered(webhook: "ops", eventID: event.id, attempts: index == 0 ? 4 : 1))
        }

        let order = harness.receiver.requests.compactMap { $0.header("webhook-id") }
        #expect(order == [events[0].id, events[0].id, events[0].id, events[0].id, events[1].id, events[2].id])
        #expect(try await outbox.pendingCount(webhook: "ops") == 0)
        #expect(harness.clock.pendingDeadlines.isEmpty)
        // One warning for the failing notification (the first failure), not one per attempt.
        #expect(harness.logs.all.filter { $0.level == .warning }.count == 1)
        run.cancel()
        await run.value
        await harness.shutdown()
    }

    @Test("receiver not listening: retried on the clock; a reload to a live URL delivers with the same id")
    func connectionRefusedThenReload() async throws {
        let harness = try await OutboxHarness()
        let dead = try await MockHTTPServer()
        let deadURL = try #require(URL(string: "\(dead.baseURL.absoluteString)/hook"))
        await dead.shutdown()
        let outbox = harness.outbox([WebhookTarget(name: "ops", url: deadURL, timeout: .seconds(1))])
        let run = Task { await outbox.run() }
        var arrivals = harness.receiver.arrivals.makeAsyncIterator()
        var reports = harness.reports.stream.makeAsyncIterator()
        let event = SampleEvents.ipo()
        let start = harness.clock.now()

        try await outbox.deliver(event)
        guard case .retrying(_, let id, 1, let next, _) = try await reports.expectNext() else {
            Issue.record("a refused connection should be retried")
            return
        }
        #expect(id == event.id)
        #expect(next == start.addingTimeInterval(1))
        try await harness.clock.waitForSleeper(.webhookDelivery, at: next)

        await outbox.update(targets: [harness.target()])
        await harness.clock.advance(by: .seconds(1))

        let request = try await arrivals.expectNext()
        #expect(request.header("webhook-id") == event.id)
        #expect(try await reports.expectNext() == .delivered(webhook: "ops", eventID: event.id, attempts: 2))
        run.cancel()
        await run.value
        await harness.shutdown()
    }

    @Test("a 400 is not retried: one request, one error log, dropped; the next notification goes out")
    func badRequestIsPermanent() async throws {
        let harness = try await OutboxHarness()
        harness.receiver.script([.json(#"{"error":"invalid_payload"}"#, status: 400)], then: .status(204))
        let outbox = harness.outbox([harness.target()])
        let run = Task { await outbox.run() }
        var reports = harness.reports.stream.makeAsyncIterator()
        let first = SampleEvents.premium()
        let second = SampleEvents.fx()

        try await outbox.deliver(first)
        try await outbox.deliver(second)

        guard case .dropped(_, let droppedID, 1, let reason) = try await reports.expectNext() else {
            Issue.record("a 400 should drop the notification")
            return
        }
        #expect(droppedID == first.id)
        #expect(reason.contains("HTTP 400") && reason.contains("invalid_payload"))
        #expect(try await reports.expectNext() == .delivered(webhook: "ops", eventID: second.id, attempts: 1))
        #expect(harness.receiver.requests.compactMap { $0.header("webhook-id") } == [first.id, second.id])
        let errors = harness.logs.all.filter { $0.level == .error }
        #expect(errors.count == 1)
        #expect(errors.first?.metadata["event_id"] == first.id)
        #expect(errors.first?.message.contains("HTTP 400") == true)
        #expect(harness.clock.pendingDeadlines.isEmpty)
        #expect(try await outbox.pendingCount(webhook: "ops") == 0)
        run.cancel()
        await run.value
        await harness.shutdown()
    }

    @Test("429 with Retry-After: 120 waits at least 120 s")
    func retryAfterIsHonoured() async throws {
        let harness = try await OutboxHarness()
        harness.receiver.script([.status(429, headers: [("Retry-After", "120")])], then: .status(200))
        let outbox = harness.outbox([harness.target()])
        let run = Task { await outbox.run() }
        var arrivals = harness.receiver.arrivals.makeAsyncIterator()
        var reports = harness.reports.stream.makeAsyncIterator()
        let event = SampleEvents.premium()
        let start = harness.clock.now()
        let due = start.addingTimeInterval(120)

        try await outbox.deliver(event)
        _ = try await arrivals.expectNext()
        #expect(
            try await reports.expectNext()
                == .retrying(webhook: "ops", eventID: event.id, attempts: 1, nextAttemptAt: due, error: "HTTP 429, retry after 2m"))
        try await harness.clock.waitForSleeper(.webhookDelivery, at: due)
        await harness.clock.advance(by: .seconds(119))
        #expect(harness.clock.pendingDeadlines == [due])
        #expect(harness.receiver.requests.count == 1)

        await harness.clock.advance(by: .seconds(1))
        let retry = try await arrivals.expectNext()
        #expect(retry.header("webhook-timestamp") == String(Int(due.timeIntervalSince1970)))
        #expect(try await reports.expectNext() == .delivered(webhook: "ops", eventID: event.id, attempts: 2))
        run.cancel()
        await run.value
        await harness.shutdown()
    }

    @Test("max_age: retried until the next try would be too late, then dropped with an error")
    func maxAgeExpiry() async throws {
        let harness = try await OutboxHarness()
        harness.receiver.script([], then: .status(503))
        let outbox = harness.outbox([harness.target(maxAge: .seconds(10))])
        let run = Task { await outbox.run() }
        var reports = harness.reports.stream.makeAsyncIterator()
        let event = SampleEvents.source()

        try await outbox.deliver(event)
        for wait in [1.0, 2.0, 4.0] {  // attempts at +0, +1, +3, +7; the next would be at +15
            guard case .retrying = try await reports.expectNext() else {
                Issue.record("expected a retry")
                return
            }
            try await harness.clock.waitForSleeper(.webhookDelivery)
            await harness.clock.advance(by: .seconds(wait))
        }
        guard case .dropped(_, let id, 4, let reason) = try await reports.expectNext() else {
            Issue.record("expected the notification to be dropped")
            return
        }
        #expect(id == event.id)
        #expect(reason.contains("max_age 10s"))
        #expect(harness.receiver.requests.count == 4)
        #expect(try await outbox.pendingCount(webhook: "ops") == 0)
        let errors = harness.logs.all.filter { $0.level == .error }
        #expect(errors.count == 1)
        #expect(errors.first?.metadata["event_id"] == event.id)
        #expect(errors.first?.message.contains("max_age 10s") == true)
        run.cancel()
        await run.value
        await harness.shutdown()
    }

    @Test("only webhooks whose kinds include the event's kind get it")
    func kindsFilter() async throws {
        let harness = try await OutboxHarness()
        let outbox = harness.outbox([harness.target(name: "ipo-only", kinds: [.ipo]), harness.target(name: "all")])
        let premium = SampleEvents.premium()
        let ipo = SampleEvents.ipo()

        try await outbox.deliver(premium)
        try await outbox.deliver(ipo)

        #expect(try await outbox.pendingCount(webhook: "ipo-only") == 1)
        #expect(try await outbox.pendingCount(webhook: "all") == 2)
        #expect(try await harness.store.webhookOutboxRows(webhook: "ipo-only").map(\.eventID) == [ipo.id])
        #expect(try await harness.store.webhookOutboxRows(webhook: "all").map(\.eventID) == [premium.id, ipo.id])
        await harness.shutdown()
    }

    @Test("a URL from url_env never reaches the logs or reports, even when the receiver echoes it")
    func secretURLIsRedacted() async throws {
        let harness = try await OutboxHarness()
        let receiver = try await WebhookReceiver(path: "/services/T0/B0/SECRETTOKEN42")
        let echo = #"{"error":"bad hook http://127.0.0.1:\#(receiver.server.port)/services/T0/B0/SECRETTOKEN42"}"#
        receiver.script([.json(echo, status: 503)], then: .json(echo, status: 404))
        let target = WebhookTarget(name: "chat", url: receiver.url, urlSecretName: "SLACK_WEBHOOK_URL", format: .slack)
        let outbox = harness.outbox([target])
        let run = Task { await outbox.run() }
        var reports = harness.reports.stream.makeAsyncIterator()

        try await outbox.deliver(SampleEvents.premium())
        let retry = try await reports.expectNext()
        try await harness.clock.waitForSleeper(.webhookDelivery)
        await harness.clock.advance(by: .seconds(1))
        let drop = try await reports.expectNext()

        guard case .retrying(_, _, _, _, let error) = retry, case .dropped(_, _, _, let reason) = drop else {
            Issue.record("expected a retry then a drop, got \(retry), \(drop)")
            return
        }
        #expect(error.contains("<redacted>") && reason.contains("<redacted>"))
        #expect(!error.contains("SECRETTOKEN42") && !reason.contains("SECRETTOKEN42"))
        let logs = harness.logs.all
        #expect(logs.count >= 2)
        #expect(!logs.contains { $0.text.contains("SECRETTOKEN42") })
        #expect(try await harness.store.webhookOutboxRows(webhook: "chat").isEmpty)
        run.cancel()
        await run.value
        await receiver.server.shutdown()
        await harness.shutdown()
    }
}
