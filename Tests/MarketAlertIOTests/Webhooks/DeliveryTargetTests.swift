import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Synchronization
import Testing

/// The outbox is one queue for every durable sink: a target that is not a webhook (here, one that appends
/// its rendered line to a file) gets the same durable queue in SQLite, the same retries with backoff on the
/// clock, the same head-of-line order and the same reports, with nothing but its `DeliveryTarget` conformance.
@Suite("Outbox delivery targets", .timeLimit(.minutes(1)))
struct DeliveryTargetTests {
    /// A durable sink that appends one line per notification to a file; its first `failures` attempts fail
    /// as a busy server's would.
    struct FileLineTarget: DeliveryTarget {
        let name: String
        let path: String
        let failures: Int
        let attempts = Counter()
        var kinds: Set<AlertKind> { [.premium, .fx] }
        var maxAge: Duration { .seconds(3600) }

        func render(_ event: AlertEvent) throws -> Data { Data("\(event.id) \(event.key) \(event.status)\n".utf8) }

        func attempt(_ row: WebhookOutboxRow, attemptAt: Date) async -> WebhookAttemptResult {
            let attempt = attempts.next()
            guard attempt > failures else { return .retryable(reason: "busy (attempt \(attempt))", retryAfter: nil) }
            guard let handle = FileHandle(forWritingAtPath: path) else { return .permanent(reason: "no file") }
            defer { try? handle.close() }
            do {
                try handle.seekToEnd()
                try handle.write(contentsOf: row.body)
            } catch {
                return .retryable(reason: "\(error)", retryAfter: nil)
            }
            return .delivered(status: 200)
        }

        func redact(_ text: String) -> String { text }

        func isSame(as other: any DeliveryTarget) -> Bool { (other as? FileLineTarget)?.path == path }
    }

    final class Counter: Sendable {
        private let value = Mutex(0)
        func next() -> Int { value.withLock { $0 += 1; return $0 } }
    }

    @Test("a file target: queued durably, retried on the clock, in order, kinds filtered")
    func aTargetThatIsNotAWebhookGetsTheOutboxsQueueAndRetries() async throws {
        let harness = try await OutboxHarness()
        let path = try makeTemporaryDirectory() + "/lines.txt"
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let target = FileLineTarget(name: "file", path: path, failures: 2)
        let outbox = WebhookOutbox(
            store: harness.store, deliveryTargets: [target], clock: harness.clock, logger: harness.logs.logger(), random: { 0.5 },
            onReport: harness.reports.callback)
        var reports = harness.reports.stream.makeAsyncIterator()
        let events = [SampleEvents.premium(), SampleEvents.ipo(), SampleEvents.fx()]
        for event in events { try await outbox.deliver(event) }
        // The IPO event is not of the target's kinds; the other two wait in the store before any loop runs.
        #expect(try await harness.store.webhookOutboxRows(webhook: "file").map(\.eventID) == [events[0].id, events[2].id])

        let run = Task { await outbox.run() }
        let start = harness.clock.now()
        #expect(try await reports.expectNext() == .retrying(webhook: "file", eventID: events[0].id, attempts: 1, nextAttemptAt: start.addingTimeInterval(1), error: "busy (attempt 1)"))
        try await harness.clock.waitForSleeper(.webhookDelivery, at: start.addingTimeInterval(1))
        await harness.clock.advance(by: .seconds(1))
        #expect(try await reports.expectNext() == .retrying(webhook: "file", eventID: events[0].id, attempts: 2, nextAttemptAt: start.addingTimeInterval(3), error: "busy (attempt 2)"))
        try await harness.clock.waitForSleeper(.webhookDelivery, at: start.addingTimeInterval(3))
        await harness.clock.advance(by: .seconds(2))
        #expect(try await reports.expectNext() == .delivered(webhook: "file", eventID: events[0].id, attempts: 3))
        #expect(try await reports.expectNext() == .delivered(webhook: "file", eventID: events[2].id, attempts: 1))

        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines == ["\(events[0].id) \(events[0].key) \(events[0].status)", "\(events[2].id) \(events[2].key) \(events[2].status)"])
        #expect(try await outbox.pendingCount(webhook: "file") == 0)
        run.cancel()
        await run.value
        await harness.shutdown()
    }
}
