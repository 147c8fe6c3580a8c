import Foundation
import Logging
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import ServiceLifecycle
import Synchronization
import Testing

/// `PostgresStore` on a real PostgreSQL (a private cluster on 127.0.0.1): migrations, the same semantics as
/// `SQLiteStore`, and every write fenced by the lease.
@Suite(.enabled(if: PostgresTestServer.isAvailable, "needs PostgreSQL (apt-get install postgresql; scripts/test does)"))
struct PostgresStoreTests {
    let t0 = Date(timeIntervalSince1970: 1_773_108_000)

    /// On the real clock an operation's deadline is real time: 20 s by default, so that a loaded test host (two
    /// cores, a whole suite beside it) does not fail a healthy query; on a `ManualClock` the daemon's own 4 s.
    static func open(
        _ url: String, instance: String = "a", clock: any DaemonClock = SystemClock(), operationTimeout: Duration? = nil
    ) async throws -> PostgresStore {
        let timeout = operationTimeout ?? (clock is ManualClock ? PostgresStore.defaultOperationTimeout : .seconds(20))
        let store = running(
            try PostgresStore(url: try PostgresURL(url), instance: instance, logger: Logger(label: "test"), clock: clock, operationTimeout: timeout))
        try await store.migrate()
        return store
    }

    /// Starts the store's connection pool in a task of the test's; `store.shutdown()` ends it.
    static func running(_ store: PostgresStore) -> PostgresStore {
        Task { await store.run() }
        return store
    }

    /// Takes the lease and fences writes with it.
    static func lead(_ store: PostgresStore, lease: TimeInterval = 30) async throws -> Int64 {
        guard case .acquired(let epoch) = try await store.acquireLease(for: lease) else {
            Issue.record("lease not acquired")
            return -1
        }
        store.setFence(epoch: epoch)
        return epoch
    }

    @Test func twoInstancesMigratingAtOnceApplyEachVersionOnce() async throws {
        let (server, url) = try await SharedPostgres.database()
        let a = Self.running(try PostgresStore(url: try PostgresURL(url), instance: "a", logger: Logger(label: "a")))
        let b = Self.running(try PostgresStore(url: try PostgresURL(url), instance: "b", logger: Logger(label: "b")))
        async let first = a.migrate()
        async let second = b.migrate()
        let versions = try await [first, second]
        #expect(versions == [PostgresStore.latestSchemaVersion, PostgresStore.latestSchemaVersion])
        let database = String(url.split(separator: "/").last?.split(separator: "?").first ?? "")
        #expect(try await server.psql("SELECT count(*) FROM schema_migrations", database: database) == "\(PostgresStore.latestSchemaVersion)")
        #expect(try await a.schemaVersion() == PostgresStore.latestSchemaVersion)
        #expect(try await a.migrate() == PostgresStore.latestSchemaVersion)  // again: nothing to do
        await a.shutdown()
        await b.shutdown()
    }

    @Test func statesAndPendingNotificationsAsSQLite() async throws {
        let (_, url) = try await SharedPostgres.database()
        let store = try await Self.open(url)
        defer { Task { await store.shutdown() } }
        _ = try await Self.lead(store)
        var machine = LeveledAlertStateMachine()
        _ = machine.observe(0.2, now: t0, policy: LeveledAlertPolicy(levels: PremiumRule.defaultLevels, clearBelow: 0.04))
        let first = SampleEvents.source(id: "e-1")
        let second = SampleEvents.fx(id: "e-2")
        try await store.commit(Publication(states: [
            StateRecord.encode(machine, key: "premium/global/BTC", kind: "premium"),
            StateRecord.encode(machine, key: "premium/global/ETH", kind: "premium"),
        ], events: [first, second]), at: t0)
        try await store.commit(Publication(deletedKeys: ["premium/global/ETH"], events: [first]), at: t0)  // a repeat id is ignored
        let loaded = try await store.loadStates(kind: "premium", as: LeveledAlertStateMachine.self)
        #expect(loaded.states == ["premium/global/BTC": machine])
        #expect(try await store.loadStates(kind: "ipo").isEmpty)
        let pending = try await store.pendingEvents()
        #expect(pending.map(\.id) == ["e-1", "e-2"])
        #expect(try AlertEvent.makeDecoder().decode(AlertEvent.self, from: pending[0].data) == first)
        try await store.clearPending(eventIDs: ["e-1"])
        #expect(try await store.pendingEvents().map(\.id) == ["e-2"])
    }

    @Test func aStandbyWritesNothing() async throws {
        let (_, url) = try await SharedPostgres.database()
        let store = try await Self.open(url)
        defer { Task { await store.shutdown() } }
        let refused = await #expect(throws: HAWriteRefused.self) {
            try await store.commit(Publication(events: [SampleEvents.fx(id: "x")]), at: self.t0)
        }
        #expect(refused == .notLeader)
        await #expect(throws: HAWriteRefused.self) {
            try await store.enqueueWebhookNotifications([WebhookOutboxEntry(webhook: "w", eventID: "x", body: Data("{}".utf8), expiresAt: self.t0)], at: self.t0)
        }
        #expect(try await store.pendingEvents().isEmpty)
        #expect(try await store.webhookOutboxCount(webhook: "w") == 0)
    }

    @Test func leaseExpiryTakeoverGrowsTheEpochAndFencesTheOldLeader() async throws {
        let (server, url) = try await SharedPostgres.database()
        let database = String(url.split(separator: "/").last?.split(separator: "?").first ?? "")
        let a = try await Self.open(url, instance: "host-a")
        let b = try await Self.open(url, instance: "host-b")
        defer { Task { await a.shutdown(); await b.shutdown() } }
        let fencing = LeadershipEvents()
        a.reportFencing(to: fencing)

        let epochA = try await Self.lead(a, lease: 30)
        #expect(epochA == 1)
        guard case .held(let holder, let remaining) = try await b.acquireLease(for: 30) else {
            Issue.record("b took a lease a holds")
            return
        }
        #expect(holder == a.holder)
        #expect(remaining > 25 && remaining <= 30)
        #expect(try await a.renewLease(epoch: epochA, for: 30))
        try await a.commit(Publication(events: [SampleEvents.fx(id: "before")]), at: t0)

        // The lease runs out by the database's clock (as if a stopped renewing 30 s ago).
        try await server.psql("UPDATE ha_lease SET expires_at = clock_timestamp() - interval '1 second'", database: database)
        // Expired: even before anyone takes over, a's writes are refused.
        await #expect(throws: HAWriteRefused.fenced(epoch: epochA)) {
            try await a.commit(Publication(events: [SampleEvents.fx(id: "expired")]), at: self.t0)
        }
        a.reportFencing(to: nil)
        fencing.finish()
        var fenced: [LeadershipEvent] = []
        for await event in fencing.stream { fenced.append(event) }
        #expect(fenced == [.fenced(epoch: epochA)])
        #expect(a.epoch == nil)

        let epochB = try await Self.lead(b)
        #expect(epochB == epochA + 1)
        // a, resumed with its stale epoch, can neither renew nor write.
        #expect(try await !a.renewLease(epoch: epochA, for: 30))
        a.setFence(epoch: epochA)
        await #expect(throws: HAWriteRefused.fenced(epoch: epochA)) {
            try await a.clearPending(eventIDs: ["before"])
        }
        await #expect(throws: HAWriteRefused.self) { _ = try await a.claimWebhookNotification(seq: 1) }
        #expect(try await a.pendingEvents().map(\.id) == ["before"])
        // b writes; a re-acquiring finds b's lease.
        try await b.clearPending(eventIDs: ["before"])
        #expect(try await b.pendingEvents().isEmpty)
        guard case .held(let by, _) = try await a.acquireLease(for: 30) else {
            Issue.record("a took b's lease")
            return
        }
        #expect(by == b.holder)
        #expect(try await a.currentLease()?.epoch == epochB)

        // A clean release lets the other take over at once, with a new epoch.
        try await b.releaseLease(epoch: epochB)
        #expect(try await Self.lead(a) == epochB + 1)
    }

    @Test func theSameProcessReacquiresWithANewEpoch() async throws {
        let (_, url) = try await SharedPostgres.database()
        let a = try await Self.open(url)
        defer { Task { await a.shutdown() } }
        let first = try await Self.lead(a)
        let second = try await a.acquireLease(for: 30)
        #expect(second == .acquired(epoch: first + 1))
        // Writes of the first epoch still in flight are refused.
        await #expect(throws: HAWriteRefused.fenced(epoch: first)) {
            try await a.commit(Publication(events: [SampleEvents.fx(id: "old")]), at: self.t0)
        }
    }

    @Test func webhookOutboxAsSQLite() async throws {
        let (_, url) = try await SharedPostgres.database()
        let store = try await Self.open(url)
        defer { Task { await store.shutdown() } }
        _ = try await Self.lead(store)
        let entries = [
            WebhookOutboxEntry(webhook: "ops", eventID: "e-1", body: Data("{\"a\":1}".utf8), expiresAt: t0.addingTimeInterval(60)),
            WebhookOutboxEntry(webhook: "ops", eventID: "e-2", body: Data("{\"a\":2}".utf8), expiresAt: t0.addingTimeInterval(60)),
            WebhookOutboxEntry(webhook: "gone", eventID: "e-3", body: Data("{}".utf8), expiresAt: t0.addingTimeInterval(10)),
        ]
        try await store.enqueueWebhookNotifications(entries, at: t0)
        let head = try #require(try await store.webhookOutboxHead(webhook: "ops"))
        #expect(head.eventID == "e-1" && head.body == entries[0].body && head.attempts == 0)
        #expect(head.createdAt == t0 && head.nextAttemptAt == t0 && head.expiresAt == t0.addingTimeInterval(60))
        #expect(try await store.claimWebhookNotification(seq: head.seq))
        try await store.recordWebhookFailure(seq: head.seq, attempts: 1, nextAttemptAt: t0.addingTimeInterval(5), error: "HTTP 503")
        let failed = try #require(try await store.webhookOutboxHead(webhook: "ops"))
        #expect(failed.attempts == 1 && failed.lastError == "HTTP 503" && failed.nextAttemptAt == t0.addingTimeInterval(5))
        try await store.deleteWebhookNotification(seq: head.seq)
        #expect(try await store.webhookOutboxRows(webhook: "ops").map(\.eventID) == ["e-2"])
        #expect(try await !store.claimWebhookNotification(seq: head.seq))
        #expect(try await store.purgeExpiredWebhookNotifications(exceptFor: ["ops"], now: t0.addingTimeInterval(100)) == ["gone": 1])
        #expect(try await store.webhookOutboxCount(webhook: "gone") == 0)
        #expect(try await store.webhookOutboxCount(webhook: "ops") == 1)
    }

    @Test func silencesAsSQLite() async throws {
        let (_, url) = try await SharedPostgres.database()
        let store = try await Self.open(url)
        defer { Task { await store.shutdown() } }
        _ = try await Self.lead(store)
        func silence(_ id: String, from: TimeInterval, to: TimeInterval) -> Silence {
            Silence(
                id: id, matchers: SilenceMatchers(key: "premium/*", kind: .premium, severity: .warning), startsAt: t0.addingTimeInterval(from),
                endsAt: t0.addingTimeInterval(to), comment: "c", createdBy: "t", createdAt: t0.addingTimeInterval(from))
        }
        try await store.insertSilence(silence("old", from: -9 * 86_400, to: -8 * 86_400))
        try await store.insertSilence(silence("recent", from: -2 * 86_400, to: -86_400))
        try await store.insertSilence(silence("active", from: -60, to: 3600))
        try await store.insertSilence(silence("future", from: 600, to: 3600))
        #expect(try await store.silences(now: t0).map(\.id) == ["recent", "active", "future"])
        #expect(try await store.silences(now: t0.addingTimeInterval(-10 * 86_400)).map(\.id) == ["recent", "active", "future"])
        #expect(try await store.expireSilence(id: "active", at: t0))
        #expect(try await store.expireSilence(id: "future", at: t0))
        #expect(try await !store.expireSilence(id: "missing", at: t0))
        let listed = Dictionary(uniqueKeysWithValues: try await store.silences(now: t0).map { ($0.id, $0) })
        #expect(listed["active"]?.endsAt == t0 && listed["active"]?.startsAt == t0.addingTimeInterval(-60))
        #expect(listed["future"]?.startsAt == t0 && listed["future"]?.endsAt == t0)
        try await store.markSilenceEndsHandled(["active"], at: t0.addingTimeInterval(1))
        #expect(try await store.silences(now: t0).first { $0.id == "active" }?.endHandledAt == t0.addingTimeInterval(1))
    }

    /// A run of transitions as the publisher writes them under HA: each a fenced commit (the lease check, a
    /// state row, a pending event) and its clear after delivery. Every one lands and nothing stays pending.
    /// (What this costs is a budget, measured by `marketalertd-bench --ha`, not here.)
    @Test func fencedTransitionsInARowLeaveNothingPending() async throws {
        let (_, url) = try await SharedPostgres.database()
        let store = try await Self.open(url)
        defer { Task { await store.shutdown() } }
        _ = try await Self.lead(store)
        var machine = LeveledAlertStateMachine()
        _ = machine.observe(0.2, now: t0, policy: LeveledAlertPolicy(levels: PremiumRule.defaultLevels, clearBelow: 0.04))
        let state = StateRecord.encode(machine, key: "premium/global/BTC", kind: "premium")
        for index in 0..<50 {
            let event = SampleEvents.fx(id: "run-\(index)")
            try await store.commit(Publication(states: [state], events: [event]), at: t0)
            #expect(try await store.pendingEvents().map(\.id) == [event.id])
            try await store.clearPending(eventIDs: [event.id])
        }
        #expect(try await store.pendingEvents().isEmpty)
        #expect(try await store.loadStates(kind: "premium").keys.sorted() == ["premium/global/BTC"])
    }

    /// The connection pool is a service: it serves while its ServiceGroup runs and stops with the group at a
    /// graceful shutdown; afterwards a query is an error, never a wait.
    @Test func thePoolRunsAsAServiceAndStopsWithItsGroup() async throws {
        let (_, url) = try await SharedPostgres.database()
        let store = try PostgresStore(url: try PostgresURL(url), instance: "a", logger: Logger(label: "test"))
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [store], logger: Logger(label: "test")))
        let clock = ContinuousClock()
        async let stopped: Void = SystemClock().withDeadline(.seconds(10)) { try await group.run() }
        #expect(try await store.migrate() == PostgresStore.latestSchemaVersion)
        let shutdownAt = clock.now
        await group.triggerGracefulShutdown()
        try await stopped  // DeadlineExceeded when the group has not stopped within 10 s
        #expect(clock.now - shutdownAt < .seconds(2), "stopped in \(clock.now - shutdownAt)")
        let asked = clock.now
        await #expect(throws: (any Error).self) { try await store.schemaVersion() }
        #expect(clock.now - asked < .seconds(2), "a query after the stop failed in \(clock.now - asked)")
        await store.shutdown()  // after the group: returns at once
    }

    /// A one-off use runs the pool for its body only; `shutdown()` of a store that never ran returns at once.
    @Test func withRunningServesItsBodyAndStopsThePool() async throws {
        let (_, url) = try await SharedPostgres.database()
        let store = try PostgresStore(url: try PostgresURL(url), instance: "a", logger: Logger(label: "test"))
        #expect(try await store.withRunning { try await $0.migrate() } == PostgresStore.latestSchemaVersion)
        await #expect(throws: (any Error).self) { try await store.schemaVersion() }
        let never = try PostgresStore(url: try PostgresURL(url), instance: "b", logger: Logger(label: "test"))
        await never.shutdown()
        await never.run()  // after `shutdown()`: returns at once
    }

    /// The database going away is an error to retry, never a crash; the same store works again once it is back.
    @Test func aStoppedServerIsAnErrorAndTheStoreReconnects() async throws {
        let server = try await PostgresTestServer()
        try await server.start()
        let url = await server.url()
        let store = try await Self.open(url, operationTimeout: .seconds(10))  // the stopped server's reads fail by it
        _ = try await Self.lead(store)
        try await server.stop()  // a restart: clean (the test cluster runs with synchronous_commit=off)
        await #expect(throws: (any Error).self) { try await store.pendingEvents() }
        await #expect(throws: (any Error).self) { _ = try await store.renewLease(epoch: 1, for: 30) }
        try await server.start()
        var recovered = false
        for _ in 0..<150 where !recovered {  // the pool reconnects with its own backoff (up to ~15 s apart)
            recovered = (try? await store.pendingEvents()) != nil
            if !recovered { try await Task.sleep(for: .milliseconds(200)) }
        }
        #expect(recovered)
        #expect(try await store.renewLease(epoch: 1, for: 30))
        await store.shutdown()
        await server.destroy()
    }
}
