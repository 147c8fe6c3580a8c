import Foundation
import Logging
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Synchronization
import Testing

/// The lease keeper on a real PostgreSQL: one of two keepers leads; the role, the fence and `STATUS=` follow;
/// a clean stop releases the lease and the other takes over with the next epoch; a lease query that never
/// answers and a failed commit step a leader down. The keepers' timing (renew every lease/3, ask again, query
/// deadlines) runs on a `ManualClock`; the database judges expiry by its own clock, which a 30 s lease keeps
/// out of the way while the test moves virtual time. The test moves time only when every keeper is at rest,
/// by name: its loop asleep ("lease keeper a") at the deadline it waits for, and no query out, or (a
/// database that does not answer) the query's deadline asleep ("lease query a"). What is real database I/O
/// (a takeover, a step-down) is awaited by name with a deadline too.
@Suite(.enabled(if: PostgresTestServer.isAvailable, "needs PostgreSQL (apt-get install postgresql; scripts/test does)"))
struct LeaseKeeperTests {
    final class Member: Sendable {
        let name: String
        let store: PostgresStore
        let role: HARole
        let lifecycle = RecordingLifecycle()
        let status: HAStatusLifecycle
        let led = Epochs()
        let events = LeadershipEvents()
        let keeper: LeaseKeeper

        /// `storeClock`: the clock of the store's own operation deadlines (real time unless given).
        init(url: String, name: String, clock: ManualClock, storeClock: (any DaemonClock)? = nil, logger: Logger? = nil) async throws {
            self.name = name
            store = try await PostgresStoreTests.open(url, instance: name, clock: storeClock ?? SystemClock())
            role = HARole(instance: name)
            status = HAStatusLifecycle(base: lifecycle, role: role)
            keeper = LeaseKeeper(
                store: store, lease: .seconds(30), role: role, clock: clock, logger: logger ?? Logger(label: name), events: events)
        }

        /// The keeper and its owner's loop, as `HAService` runs them: each takeover is recorded, each change
        /// restates the status. Returns when the keeper's run does (after `keeper.stop()`).
        func run() async {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.keeper.run() }
                for await change in keeper.changes {
                    if case .leads(let epoch) = change { led.list.withLock { $0.append(epoch) } }
                    status.roleChanged()
                }
            }
        }
    }

    final class Epochs: Sendable {
        let list = Mutex<[Int64]>([])
    }

    /// Waits (real database I/O) until `condition` holds; throws naming `what` after 10 s.
    func waitUntil(_ what: String, on clock: ManualClock, _ condition: () -> Bool) async throws {
        try await clock.waitUntil(what, timeout: .seconds(10)) { () async -> Bool in condition() }
    }

    /// Lease queries the database does not answer, as the database sees them: the query a keeper has out has
    /// reached it and waits there on the locked row (a backend of the test's database waiting on a lock, newer
    /// than the last one seen). Until then its answer is still real I/O: moving virtual time past its
    /// deadline would cancel it while it leases a connection, which tests the connection pool, not the keeper.
    /// Every query reaches the database: one that never does (once written to a connection the pool lent
    /// after it had closed, #25) fails the wait by its deadline, naming it, instead of being taken as hung.
    final class HungQueries: Sendable {
        let server: PostgresTestServer
        let database: String
        private let seen = Mutex<(query: Int?, newestStart: String)>((nil, ""))

        init(server: PostgresTestServer, database: String) {
            self.server = server
            self.database = database
        }

        /// Whether lease query `query` waits on the row lock at the database.
        func waitsAtTheDatabase(_ query: Int) async -> Bool {
            if seen.withLock({ $0.query == query }) { return true }
            let sql = "SELECT coalesce(max(query_start)::text, '') FROM pg_stat_activity WHERE datname = '\(database)' AND wait_event_type = 'Lock'"
            let newest = (try? await server.psql(sql)) ?? ""
            return seen.withLock { seen in
                guard !newest.isEmpty, newest != seen.newestStart else { return false }
                seen = (query, newest)
                return true
            }
        }
    }

    /// Every keeper at rest: its loop asleep on the clock at the deadline it waits for, and no lease query
    /// out (its answer is real database I/O), or, with `hung`, the query out waiting at the database with both
    /// deadlines that can cut it short asleep, the keeper's ("lease query a") and the store's ("postgres
    /// operation", the store on the same clock): only virtual time ends such a query.
    func settle(_ clock: ManualClock, _ members: Member..., hung: HungQueries? = nil, fileID: StaticString = #fileID, line: UInt = #line) async throws {
        var waitingFor = "\(members.map(\.name)) at rest"
        try await clock.waitUntil(waitingFor, fileID: fileID, line: line) { () async -> Bool in
            for member in members {
                let rest = await member.keeper.rest
                let asleep = clock.sleeping
                guard let until = rest.until, asleep.contains(where: { $0.label == .leaseKeeper(member.name) && $0.deadline == until }) else {
                    waitingFor = "\(ClockLabel.leaseKeeper(member.name)) asleep" + (rest.until.map { " until \(Timestamp.rfc3339($0))" } ?? "")
                    return false
                }
                if rest.querying {
                    guard let hung else {
                        waitingFor = "the answer to \(member.name)'s lease query"
                        return false
                    }
                    let cutShortBy: [ClockLabel] = [.leaseQuery(member.name), .postgresOperation]
                    guard cutShortBy.allSatisfy({ label in asleep.contains { $0.label == label } }) else {
                        waitingFor = "\(cutShortBy) asleep"
                        return false
                    }
                    guard await hung.waitsAtTheDatabase(rest.query) else {
                        waitingFor = "\(member.name)'s lease query #\(rest.query) waiting on the locked row at the database"
                        return false
                    }
                }
                // Nothing happened meanwhile (an answer, a wake-up).
                guard await member.keeper.rest == rest else { return false }
            }
            return true
        }
    }

    @Test func oneLeadsAndACleanStopHandsOver() async throws {
        let (_, url) = try await SharedPostgres.database()
        let clock = ManualClock(now: Date())
        let a = try await Member(url: url, name: "a", clock: clock)
        let b = try await Member(url: url, name: "b", clock: clock)
        a.status.status("ready: 2 exchanges ok")
        b.status.status("ready: 2 exchanges ok")
        let runA = Task { await a.run() }
        try await waitUntil("a leads", on: clock) { a.role.role == .leader }
        try await settle(clock, a)
        let runB = Task { await b.run() }
        try await settle(clock, a, b)  // b asked, was refused, and waits to ask again
        // More than a lease of virtual time: a renews every 10 s, b keeps asking and stays a standby.
        for _ in 0..<9 {
            await clock.advance(by: .seconds(5))
            try await settle(clock, a, b)
        }
        #expect(b.role.role == .standby && b.store.epoch == nil)
        #expect(a.role.role == .leader)
        #expect(a.store.epoch == 1 && a.led.list.withLock { $0 } == [1])
        #expect(a.lifecycle.statuses.last == "leader (epoch 1); ready: 2 exchanges ok")
        #expect(b.lifecycle.statuses.last == "standby; ready: 2 exchanges ok")

        a.keeper.stop()
        await runA.value
        #expect(a.role.role == .standby && a.store.epoch == nil)
        await clock.advance(by: .seconds(10))  // b's next ask finds the lease released
        // The owner hears of the takeover after the role changes: wait for what it is told (it records the
        // epoch, then restates the status).
        try await waitUntil("b takes over and its owner is told", on: clock) {
            b.lifecycle.statuses.last == "leader (epoch 2); ready: 2 exchanges ok"
        }
        #expect(b.role.role == .leader)
        #expect(b.led.list.withLock { $0 } == [2])
        #expect(a.lifecycle.statuses.last == "standby; ready: 2 exchanges ok")
        b.keeper.stop()
        await runB.value
        await a.store.shutdown()
        await b.store.shutdown()
    }

    /// A renewal the database never answers (another session holds the lease row) neither blocks the keeper
    /// nor keeps it leading: the query is abandoned at its deadline and asked again, and the leader steps down
    /// when its own-clock validity ends (lease − margin: 24 s), before the database's expiry (30 s). Every
    /// deadline, the keeper's and the store's, is on the `ManualClock`: only virtual time ends the hung query.
    @Test func aRenewalThatNeverAnswersStepsDownOnVirtualTime() async throws {
        let (server, url) = try await SharedPostgres.database()
        let database = String(url.split(separator: "/").last?.split(separator: "?").first ?? "")
        let clock = ManualClock(now: Date())
        let log = LogRecorder()
        let a = try await Member(url: url, name: "a", clock: clock, storeClock: clock, logger: log.logger(label: "a"))
        a.status.status("ready: 2 exchanges ok")
        let runA = Task { await a.run() }
        try await waitUntil("a leads", on: clock) { a.role.role == .leader }
        try await settle(clock, a)
        let ledAt = clock.now()

        // Another session locks the lease row and keeps it for up to 20 s of real time.
        async let blocker = server.psql("BEGIN; SELECT 1 FROM ha_lease FOR UPDATE; SELECT pg_sleep(20); COMMIT", database: database)
        let holding = "SELECT count(*) FROM pg_stat_activity WHERE datname = '\(database)' AND wait_event = 'PgSleep'"
        try await clock.waitUntil("the lease row locked by another session", timeout: .seconds(10)) { () async -> Bool in
            (try? await server.psql(holding)) == "1"
        }
        let hung = HungQueries(server: server, database: database)

        // Virtual time in 1 s steps, each once the keeper is at rest: the renewal is due at 10 s; it reaches the
        // database and hangs there, and so does every retry, each abandoned when a deadline comes.
        var steppedDownAfter: TimeInterval?
        for _ in 0..<40 where steppedDownAfter == nil {
            await clock.advance(by: .seconds(1))
            try await settle(clock, a, hung: hung)
            if a.role.role == .standby { steppedDownAfter = clock.now().timeIntervalSince(ledAt) }
        }
        #expect(a.role.role == .standby && a.store.epoch == nil)
        #expect((steppedDownAfter ?? .infinity) < 30, "stepped down \(steppedDownAfter ?? -1) s after leading, before the database's expiry")
        let failures = log.all.filter { $0.message.contains("HA: lease renewal failed") && $0.message.contains("no answer within") }
        #expect(failures.count >= 2, "the unanswered renewal was abandoned at its deadline and asked again: \(log.all.map(\.message))")
        #expect(try await server.psql(holding) == "1", "the renewal never got its answer: the row is still locked")
        try await waitUntil("the owner is told", on: clock) { a.lifecycle.statuses.last == "standby; ready: 2 exchanges ok" }

        _ = try await server.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(database)' AND wait_event = 'PgSleep'")
        _ = try? await blocker
        a.keeper.stop()
        await runA.value
        await a.store.shutdown()
    }

    /// A failed commit, reported as a typed event, steps the leader down at once (fence cleared, owner told);
    /// the keeper seeks the lease again and leads with a new epoch.
    @Test func aFailedCommitStepsTheLeaderDownAndItLeadsAgainWithANewEpoch() async throws {
        let (_, url) = try await SharedPostgres.database()
        let clock = ManualClock(now: Date())
        let a = try await Member(url: url, name: "a", clock: clock)
        a.status.status("ready: 1 exchange ok")
        let runA = Task { await a.run() }
        try await waitUntil("a leads", on: clock) { a.role.role == .leader }
        #expect(a.store.epoch == 1)

        a.events.report(.commitFailed(epoch: 1, reason: "PostgreSQL unreachable"))
        try await waitUntil("a stands by", on: clock) { a.role.role == .standby }
        #expect(a.store.epoch == nil)
        try await waitUntil("the owner is told", on: clock) { a.lifecycle.statuses.last == "standby; ready: 1 exchange ok" }

        try await settle(clock, a)
        await clock.advance(by: .seconds(1))  // the next ask: the same holder takes the lease with a new epoch
        try await waitUntil("a leads again and its owner is told", on: clock) {
            a.lifecycle.statuses.last == "leader (epoch 2); ready: 1 exchange ok"
        }
        #expect(a.role.role == .leader)
        #expect(a.store.epoch == 2 && a.led.list.withLock { $0 } == [1, 2])
        a.keeper.stop()
        await runA.value
        await a.store.shutdown()
    }
}
