import Foundation
import Logging
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// The outbox on a real SQLite file: nothing is lost across restarts, shutdown finishes what is in flight, and
/// a hanging receiver holds up nobody else.
@Suite("Webhook outbox durability and isolation", .timeLimit(.minutes(1)))
struct WebhookOutboxDurabilityTests {
    @Test("queued before any attempt: the row is in the file as soon as deliver returns")
    func queuedBeforeAttempt() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let harness = try await OutboxHarness(store: try SQLiteStore(directory: directory))
        let outbox = harness.outbox([harness.target()])  // never run: no attempt is made
        let event = SampleEvents.premium()

        try await outbox.deliver(event)

        let rows = try await SQLiteStore(directory: directory).webhookOutboxRows(webhook: "ops")
        #expect(rows.map(\.eventID) == [event.id])
        #expect(rows.first?.body == (try AlertEvent.makeEncoder().encode(event)))
        #expect(rows.first?.attempts == 0)
        #expect(rows.first?.createdAt == harness.clock.now())
        #expect(rows.first?.expiresAt == harness.clock.now().addingTimeInterval(3600))
        #expect(harness.receiver.requests.isEmpty)
        await harness.shutdown()
    }

    @Test("restart: a new outbox on the same file sends the pending rows with their original ids and bytes, after the stored backoff")
    func restartDeliversPending() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let harness = try await OutboxHarness(store: try SQLiteStore(directory: directory))
        harness.receiver.script([], then: .status(503))
        let first = harness.outbox([harness.target()])
        let firstRun = Task { await first.run() }
        var arrivals = harness.receiver.arrivals.makeAsyncIterator()
        var reports = harness.reports.stream.makeAsyncIterator()
        let events = [SampleEvents.premium(), SampleEvents.ipo()]
        let start = harness.clock.now()

        for event in events { try await first.deliver(event) }
        let failed = try await arrivals.expectNext()
        guard case .retrying = try await reports.expectNext() else {
            Issue.record("expected a retry")
            return
        }
        try await harness.clock.waitForSleeper(.webhookDelivery, at: start.addingTimeInterval(1))
        firstRun.cancel()  // the daemon stops while the first notification waits for its retry
        await firstRun.value

        let reopened = try SQLiteStore(directory: directory)
        let pending = try await reopened.webhookOutboxRows(webhook: "ops")
        #expect(pending.map(\.eventID) == events.map(\.id))
        #expect(pending.map(\.attempts) == [1, 0])
        #expect(pending.first?.nextAttemptAt == start.addingTimeInterval(1))
        #expect(pending.first?.lastError == "HTTP 503")

        harness.receiver.script([], then: .status(200))
        let second = harness.outbox([harness.target()], store: reopened)
        let secondRun = Task { await second.run() }
        try await harness.clock.waitForSleeper(.webhookDelivery, at: start.addingTimeInterval(1))
        #expect(harness.clock.pendingDeadlines == [start.addingTimeInterval(1)])
        await harness.clock.advance(by: .seconds(1))

        let resent = try await arrivals.expectNext()
        let next = try await arrivals.expectNext()
        #expect(resent.header("webhook-id") == events[0].id)
        #expect(resent.body == failed.body)
        #expect(next.header("webhook-id") == events[1].id)
        #expect(next.body == (try AlertEvent.makeEncoder().encode(events[1])))
        #expect(try await reports.expectNext() == .delivered(webhook: "ops", eventID: events[0].id, attempts: 2))
        #expect(try await reports.expectNext() == .delivered(webhook: "ops", eventID: events[1].id, attempts: 1))
        #expect(try await second.pendingCount(webhook: "ops") == 0)
        secondRun.cancel()
        await secondRun.value
        await harness.shutdown()
    }

    @Test("restart after a long outage: rows past max_age are dropped with an error, not sent")
    func restartDropsExpired() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let harness = try await OutboxHarness(store: try SQLiteStore(directory: directory))
        let event = SampleEvents.fx()
        try await harness.outbox([harness.target(maxAge: .seconds(600))]).deliver(event)

        await harness.clock.advance(by: .seconds(601))
        let outbox = harness.outbox([harness.target(maxAge: .seconds(600))], store: try SQLiteStore(directory: directory))
        let run = Task { await outbox.run() }
        var reports = harness.reports.stream.makeAsyncIterator()

        guard case .dropped(_, let id, 0, let reason) = try await reports.expectNext() else {
            Issue.record("expected the expired row to be dropped")
            return
        }
        #expect(id == event.id)
        #expect(reason.contains("max_age 10m"))
        #expect(harness.receiver.requests.isEmpty)
        #expect(harness.logs.all.contains { $0.level == .error && $0.metadata["event_id"] == event.id })
        run.cancel()
        await run.value
        await harness.shutdown()
    }

    @Test("graceful shutdown lets the in-flight attempt finish and records it")
    func gracefulShutdownFinishesInFlight() async throws {
        let harness = try await OutboxHarness()
        harness.receiver.script([.status(200, delay: .milliseconds(300))], then: .status(200))
        let outbox = harness.outbox([harness.target()])
        let run = Task { await outbox.run() }
        var arrivals = harness.receiver.arrivals.makeAsyncIterator()
        var reports = harness.reports.stream.makeAsyncIterator()
        let event = SampleEvents.premium()

        try await outbox.deliver(event)
        _ = try await arrivals.expectNext()  // the answer is still 300 ms away
        outbox.stopGracefully()
        await run.value

        #expect(try await reports.expectNext() == .delivered(webhook: "ops", eventID: event.id, attempts: 1))
        #expect(try await outbox.pendingCount(webhook: "ops") == 0)
        await harness.shutdown()
    }

    @Test("cancellation abandons the in-flight attempt and keeps the row untouched")
    func cancellationKeepsRow() async throws {
        let harness = try await OutboxHarness()
        harness.receiver.script([], then: .status(200, delay: .seconds(30)))
        let outbox = harness.outbox([harness.target(timeout: .seconds(20))])
        let run = Task { await outbox.run() }
        var arrivals = harness.receiver.arrivals.makeAsyncIterator()
        let event = SampleEvents.premium()

        try await outbox.deliver(event)
        _ = try await arrivals.expectNext()
        run.cancel()
        await run.value

        let rows = try await harness.store.webhookOutboxRows(webhook: "ops")
        #expect(rows.map(\.eventID) == [event.id])
        #expect(rows.first?.attempts == 0)
        await harness.shutdown()
    }

    @Test("a hanging receiver delays neither the other sinks nor later deliver calls")
    func hangingReceiverDoesNotBlockFanout() async throws {
        let harness = try await OutboxHarness()
        harness.receiver.script([], then: .status(200, delay: .seconds(30)))
        let outbox = harness.outbox([harness.target(timeout: .seconds(20))])
        let recording = RecordingSink()
        let fanout = AlertPublisher(store: nil, sinks: [outbox, recording], clock: SystemClock(), logger: Logger(label: "test"))  // the daemon's own fan-out
        let run = Task { await outbox.run() }
        var arrivals = harness.receiver.arrivals.makeAsyncIterator()
        let first = SampleEvents.premium()
        let second = SampleEvents.ipo()

        await fanout.publish(Publication(events: [first]))
        #expect(recording.events.map(\.id) == [first.id])
        let hanging = try await arrivals.expectNext()  // the webhook now waits 20 s for an answer
        #expect(hanging.header("webhook-id") == first.id)

        let before = ContinuousClock.now
        await fanout.publish(Publication(events: [second]))
        let took = ContinuousClock.now - before

        #expect(recording.events.map(\.id) == [first.id, second.id])
        #expect(took < .seconds(10), "deliver took \(took) while the webhook hangs 20 s")  // room for a loaded 2-core machine
        #expect(try await outbox.pendingCount(webhook: "ops") == 2)
        #expect(harness.receiver.requests.count == 1)  // the second waits behind the first
        run.cancel()
        await run.value
        await harness.shutdown()
    }

    @Test("a removed webhook keeps its rows; re-added under the same name, they are sent")
    func removedWebhookKeepsRows() async throws {
        let harness = try await OutboxHarness()
        harness.receiver.script([.status(503)], then: .status(200))
        let outbox = harness.outbox([harness.target()])
        let run = Task { await outbox.run() }
        var reports = harness.reports.stream.makeAsyncIterator()
        let event = SampleEvents.premium()

        try await outbox.deliver(event)
        guard case .retrying = try await reports.expectNext() else {
            Issue.record("expected a retry")
            return
        }
        try await harness.clock.waitForSleeper(.webhookDelivery)
        await outbox.update(targets: [])
        #expect(harness.clock.pendingDeadlines.isEmpty)  // its loop stopped
        try await outbox.deliver(SampleEvents.fx())  // no webhook takes it now
        #expect(try await outbox.pendingCount(webhook: "ops") == 1)

        await outbox.update(targets: [harness.target()])
        try await harness.clock.waitForSleeper(.webhookDelivery)
        await harness.clock.advance(by: .seconds(1))
        #expect(try await reports.expectNext() == .delivered(webhook: "ops", eventID: event.id, attempts: 2))
        #expect(harness.receiver.requests.compactMap { $0.header("webhook-id") } == [event.id, event.id])
        run.cancel()
        await run.value
        await harness.shutdown()
    }

    @Test("rows of a removed webhook are purged at a reload once past their max_age")
    func removedWebhookRowsArePurged() async throws {
        let harness = try await OutboxHarness()
        let outbox = harness.outbox([harness.target(name: "old", maxAge: .seconds(60)), harness.target(name: "kept")])
        try await outbox.deliver(SampleEvents.premium())
        await outbox.update(targets: [harness.target(name: "kept")])
        #expect(try await outbox.pendingCount(webhook: "old") == 1)  // not yet past max_age

        await harness.clock.advance(by: .seconds(61))
        await outbox.update(targets: [harness.target(name: "kept")])

        #expect(try await outbox.pendingCount(webhook: "old") == 0)
        #expect(try await outbox.pendingCount(webhook: "kept") == 1)
        #expect(harness.logs.all.contains { $0.level == .error && $0.metadata["webhook"] == "old" })
        await harness.shutdown()
    }
}
