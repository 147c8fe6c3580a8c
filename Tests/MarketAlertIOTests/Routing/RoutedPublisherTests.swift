import Foundation
import Logging
import MarketAlertCore
import MarketAlertDelivery
import MarketAlertStorage
import MarketAlertTestSupport
import Synchronization
import Testing

/// The publisher's share of routing, on virtual time: a route's targets reach the outbox (a `RoutedAlertSink`)
/// while stdout-like sinks get everything; a firing alert a `send_after_mute` route muted is sent once when the
/// window ends, through the publisher's own wake time (`nextSinkRetry`), with no publication in between.
@Suite struct RoutedPublisherTests {
    /// Records what reached it and for which targets (nil: every target by kind).
    final class RecordingOutbox: RoutedAlertSink {
        let name = "webhooks"
        let received = Mutex<[(key: String, targets: [String]?)]>([])
        func deliver(_ event: AlertEvent) async throws { _ = try await deliver(event, toTargets: nil) }
        @discardableResult
        func deliver(_ event: AlertEvent, toTargets names: [String]?) async throws -> [String] {
            received.withLock { $0.append((event.key, names)) }
            return names ?? []
        }
        var log: [(key: String, targets: [String]?)] { received.withLock { $0 } }
    }

    final class RecordingStdout: AlertSink {
        let name = "stdout"
        let received = Mutex<[AlertEvent]>([])
        func deliver(_ event: AlertEvent) async throws { received.withLock { $0.append(event) } }
        var events: [AlertEvent] { received.withLock { $0 } }
    }

    private func event(_ key: String, status: String = "firing", source: String? = nil) -> AlertEvent {
        AlertEvent(
            id: UUID().uuidString, key: key, kind: source == nil ? .fx : .source, status: status, severity: .warning, at: Date(),
            summary: key, source: source.map { SourceDetail(name: $0, error: "down", lastSuccess: nil, consecutiveFailures: 2) })
    }

    @Test func aMutedFiringAlertIsSentOnceWhenTheWindowEndsWithoutAnotherPublication() async throws {
        let start = try #require(ISO8601DateFormatter().date(from: "2026-11-26T08:30:00Z"))
        let clock = ManualClock(now: start)
        let outbox = RecordingOutbox()
        let stdout = RecordingStdout()
        let publisher = AlertPublisher(store: nil, sinks: [stdout, outbox], clock: clock, logger: Logger(label: "test"))
        let window = TimeWindow(name: "morning", entries: [TimeWindowEntry(times: [ClockRange(start: 8 * 60, end: 9 * 60)])])
        await publisher.configureRouting(RoutingSettings(
            routes: [
                Route(match: NotificationMatch(key: "fx/*"), sinks: ["phone"], muteTimeIntervals: ["morning"], sendAfterMute: true),
                Route(match: NotificationMatch(), sinks: ["ops"]),
            ],
            timeIntervals: ["morning": window]))

        let due = await publisher.publish(Publication(events: [event("fx/USD-KRW"), event("source/x", source: "x")]))
        #expect(stdout.events.map(\.key) == ["fx/USD-KRW", "source/x"])  // stdout is not routed
        #expect(outbox.log.map(\.key) == ["fx/USD-KRW", "source/x"])
        #expect(outbox.log.map(\.targets) == [[], ["ops"]])  // the fx alert is muted for phone
        #expect(due == start.addingTimeInterval(60))          // the router wakes on the next minute

        await clock.advance(to: start.addingTimeInterval(60 * 29))  // 08:59: still muted
        #expect(await publisher.retrySinks() == start.addingTimeInterval(60 * 30))
        #expect(outbox.log.count == 2)
        await clock.advance(to: start.addingTimeInterval(60 * 30))  // 09:00: the window ended
        #expect(await publisher.retrySinks() == nil)
        #expect(outbox.log.count == 3)
        #expect(outbox.log.last?.key == "fx/USD-KRW")
        #expect(outbox.log.last?.targets == ["phone"])
        #expect(stdout.events.count == 2, "stdout had it when it was published")
        await clock.advance(to: start.addingTimeInterval(60 * 31))
        #expect(await publisher.retrySinks() == nil)
        #expect(outbox.log.count == 3, "sent once")
    }

    @Test func anInhibitedNotificationReachesStdoutMarkedAndTheOutboxWithNoTarget() async throws {
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_790_000_000))
        let outbox = RecordingOutbox()
        let stdout = RecordingStdout()
        let publisher = AlertPublisher(store: nil, sinks: [stdout, outbox], clock: clock, logger: Logger(label: "test"))
        await publisher.configureRouting(RoutingSettings(inhibit: [
            InhibitRule(source: NotificationMatch(kind: .source), target: NotificationMatch(kind: .fx))
        ]))
        await publisher.publish(Publication(events: [event("source/dunamu", source: "dunamu"), event("fx/USD-KRW")]))
        #expect(stdout.events.map(\.inhibitedBy) == [nil, ["source/dunamu"]])
        #expect(outbox.log.map(\.targets) == [nil, []])
        await publisher.publish(Publication(events: [event("source/dunamu", status: "resolved", source: "dunamu")]))
        #expect(outbox.log.map(\.key) == ["source/dunamu", "fx/USD-KRW", "source/dunamu", "fx/USD-KRW"])
        #expect(outbox.log.last?.targets == nil, "released to every target by kind (no routes)")
    }

    // MARK: A restart keeps what the routes held

    /// A run's publisher as the daemon starts it: routing configured, then what the last run's routes held read back.
    private func restarted(store: SQLiteStore, sinks: [any AlertSink], clock: ManualClock, routing: RoutingSettings) async -> AlertPublisher {
        let publisher = AlertPublisher(store: store, sinks: sinks, clock: clock, logger: Logger(label: "test"))
        await publisher.configureRouting(routing)
        await publisher.restoreRouting()
        return publisher
    }

    private func temporaryStore() throws -> (SQLiteStore, String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("routing-\(UUID().uuidString)").path
        return (try SQLiteStore(directory: directory), directory)
    }

    @Test func anInhibitorStillFiringAtARestartStillInhibits() async throws {
        let (store, directory) = try temporaryStore()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_790_000_000))
        let routing = RoutingSettings(inhibit: [InhibitRule(source: NotificationMatch(kind: .source), target: NotificationMatch(kind: .fx))])
        do {
            let publisher = await restarted(store: store, sinks: [RecordingOutbox()], clock: clock, routing: routing)
            await publisher.publish(Publication(events: [event("source/dunamu", source: "dunamu")]))
        }
        // The next run, on the same store: the source alert is still firing (its state says so; no new
        // notification), and an FX alert now fires.
        let reopened = try SQLiteStore(directory: directory)
        let outbox = RecordingOutbox()
        let stdout = RecordingStdout()
        let publisher = await restarted(store: reopened, sinks: [stdout, outbox], clock: clock, routing: routing)
        await publisher.publish(Publication(events: [event("fx/USD-KRW")]))
        #expect(stdout.events.map(\.inhibitedBy) == [["source/dunamu"]])
        #expect(outbox.log.map(\.targets) == [[]], "inhibited: no target")
        // Its resolution, in this run, releases the held FX alert.
        await publisher.publish(Publication(events: [event("source/dunamu", status: "resolved", source: "dunamu")]))
        #expect(outbox.log.map(\.key) == ["fx/USD-KRW", "source/dunamu", "fx/USD-KRW"])
        #expect(outbox.log.last?.targets == nil)
    }

    @Test func aMutedAlertHeldAtARestartIsSentWhenItsWindowEnds() async throws {
        let (store, directory) = try temporaryStore()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let start = try #require(ISO8601DateFormatter().date(from: "2026-11-26T08:30:00Z"))
        let clock = ManualClock(now: start)
        let window = TimeWindow(name: "morning", entries: [TimeWindowEntry(times: [ClockRange(start: 8 * 60, end: 9 * 60)])])
        let routing = RoutingSettings(
            routes: [Route(match: NotificationMatch(key: "fx/*"), sinks: ["phone"], muteTimeIntervals: ["morning"], sendAfterMute: true)],
            timeIntervals: ["morning": window])
        do {
            let outbox = RecordingOutbox()
            let publisher = await restarted(store: store, sinks: [outbox], clock: clock, routing: routing)
            await publisher.publish(Publication(events: [event("fx/USD-KRW")]))
            #expect(outbox.log.map(\.targets) == [[]], "muted")
        }
        let stored = try await store.loadStates(kind: NotificationRouter.memoryKind)
        #expect(stored.keys.sorted() == [NotificationRouter.memoryKey])

        // Restarted during the window: the held alert waits for its end, then goes out once.
        await clock.advance(to: start.addingTimeInterval(60 * 10))
        let outbox = RecordingOutbox()
        let publisher = try await restarted(store: SQLiteStore(directory: directory), sinks: [outbox], clock: clock, routing: routing)
        #expect(await publisher.nextSinkRetry == start.addingTimeInterval(60 * 11))
        await clock.advance(to: start.addingTimeInterval(60 * 30))  // 09:00
        #expect(await publisher.retrySinks() == nil)
        #expect(outbox.log.map(\.key) == ["fx/USD-KRW"])
        #expect(outbox.log.first?.targets == ["phone"])

        // Sent, and the store says so: a third run holds nothing.
        let third = try await restarted(store: SQLiteStore(directory: directory), sinks: [RecordingOutbox()], clock: clock, routing: routing)
        #expect(await third.nextSinkRetry == nil)
    }

    /// An outbox whose deliveries of `blocking` to every target (no routes) wait until `open()`: the run
    /// "crashes" while one waits. (An inhibited notification, with no target, passes.)
    final class StallingOutbox: RoutedAlertSink {
        let name = "webhooks"
        let blocking: String
        private let gate = Mutex<(open: Bool, waiting: [CheckedContinuation<Void, Never>], stalled: Int)>((false, [], 0))
        init(blocking: String) { self.blocking = blocking }
        func deliver(_ event: AlertEvent) async throws { _ = try await deliver(event, toTargets: nil) }
        @discardableResult
        func deliver(_ event: AlertEvent, toTargets names: [String]?) async throws -> [String] {
            guard event.key == blocking, names == nil else { return names ?? [] }
            await withCheckedContinuation { continuation in
                let resume = gate.withLock { gate -> Bool in
                    if gate.open { return true }
                    gate.waiting.append(continuation)
                    gate.stalled += 1
                    return false
                }
                if resume { continuation.resume() }
            }
            return names ?? []
        }
        var stalled: Int { gate.withLock { $0.stalled } }
        func open() { for waiting in gate.withLock({ gate in gate.open = true; defer { gate.waiting = [] }; return gate.waiting }) { waiting.resume() } }
    }

    /// An inhibitor's resolution is committed with the notifications it releases: a run that stops after
    /// that commit and before the outbox has them sends them at the next start (it lost them before).
    @Test func whatAResolutionReleasedIsSentAtTheNextStartWhenTheRunStoppedBeforeSendingIt() async throws {
        let (store, directory) = try temporaryStore()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_790_000_000))
        let routing = RoutingSettings(inhibit: [InhibitRule(source: NotificationMatch(kind: .source), target: NotificationMatch(kind: .fx))])
        let stalling = StallingOutbox(blocking: "fx/USD-KRW")
        let first = await restarted(store: store, sinks: [stalling], clock: clock, routing: routing)
        await first.publish(Publication(events: [event("source/dunamu", source: "dunamu"), event("fx/USD-KRW")]))
        #expect(stalling.stalled == 0, "inhibited: held, not sent")
        // The resolution: committed, then the release's send stalls, and the run ends there.
        let resolving = Task { _ = await first.publish(Publication(events: [event("source/dunamu", status: "resolved", source: "dunamu")])) }
        try await pollUntil("the release's send under way") { stalling.stalled == 1 }
        let committed = try #require(try await store.loadStates(kind: NotificationRouter.memoryKind)[NotificationRouter.memoryKey])
        let memory = try NotificationRouter.memory(from: committed)
        #expect(memory.inhibitors.isEmpty && memory.heldByInhibition.isEmpty)
        #expect(memory.releasing.map(\.event.key) == ["fx/USD-KRW"], "committed as released, not yet sent")

        // The next run sends it at start, once, to every target by kind (no routes).
        let outbox = RecordingOutbox()
        _ = try await restarted(store: SQLiteStore(directory: directory), sinks: [outbox], clock: clock, routing: routing)
        #expect(outbox.log.map(\.key) == ["fx/USD-KRW"])
        #expect(outbox.log.first?.targets == nil)
        let third = RecordingOutbox()
        _ = try await restarted(store: SQLiteStore(directory: directory), sinks: [third], clock: clock, routing: routing)
        #expect(third.log.isEmpty, "sent, and the store says so")
        stalling.open()
        await resolving.value
    }

    @Test func aRoutingRecordFromBeforeReleasesWereKeptReadsBack() throws {
        let old = #"{"inhibitors":[],"heldByInhibition":[],"heldByMute":[]}"#
        let memory = try NotificationRouter.memory(from: Data(old.utf8))
        #expect(memory.isEmpty && memory.releasing.isEmpty)
    }

    @Test func aRouteRemovedBetweenRunsHoldsNothingOfItsOwn() async throws {
        let (store, directory) = try temporaryStore()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let start = try #require(ISO8601DateFormatter().date(from: "2026-11-26T08:30:00Z"))
        let clock = ManualClock(now: start)
        let window = TimeWindow(name: "morning", entries: [TimeWindowEntry(times: [ClockRange(start: 8 * 60, end: 9 * 60)])])
        let muted = Route(match: NotificationMatch(key: "fx/*"), sinks: ["phone"], muteTimeIntervals: ["morning"], sendAfterMute: true)
        let publisher = AlertPublisher(store: store, sinks: [RecordingOutbox()], clock: clock, logger: Logger(label: "test"))
        await publisher.configureRouting(RoutingSettings(routes: [muted], timeIntervals: ["morning": window]))
        await publisher.publish(Publication(events: [event("fx/USD-KRW")]))

        var changed = muted
        changed.sendAfterMute = false
        let next = await restarted(store: store, sinks: [RecordingOutbox()], clock: clock, routing: RoutingSettings(routes: [changed], timeIntervals: ["morning": window]))
        #expect(await next.nextSinkRetry == nil, "the route no longer sends after its mute")
    }
}
