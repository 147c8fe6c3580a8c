import Foundation
import Logging
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Synchronization
import Testing

/// The lease keeper on a real PostgreSQL: one of two keepers leads; the role, the fence and `STATUS=` follow;
/// a clean stop releases the lease and the other takes over with the next epoch. The keepers' timing (renew
/// every lease/3, ask again) runs on a `ManualClock`; the database judges expiry by its own clock, which a
/// 30 s lease keeps out of the way while the test moves virtual time.
@Suite(.enabled(if: PostgresTestServer.isAvailable, "needs PostgreSQL (apt-get install postgresql; scripts/test does)"))
struct LeaseKeeperTests {
    final class Member: Sendable {
        let store: PostgresStore
        let role: HARole
        let lifecycle = RecordingLifecycle()
        let status: HAStatusLifecycle
        let led = Epochs()
        let keeper: LeaseKeeper

        init(url: String, name: String, clock: ManualClock) async throws {
            store = try await PostgresStoreTests.open(url, instance: name)
            role = HARole(instance: name)
            status = HAStatusLifecycle(base: lifecycle, role: role)
            let (led, status) = (led, status)
            keeper = LeaseKeeper(
                store: store, lease: .seconds(30), role: role, clock: clock, logger: Logger(label: name),
                callbacks: .init(
                    onLead: { epoch in
                        led.list.withLock { $0.append(epoch) }
                        status.roleChanged()
                        return true
                    },
                    onStepDown: { _ in status.roleChanged() }))
        }
    }

    final class Epochs: Sendable {
        let list = Mutex<[Int64]>([])
    }

    func waitUntil(_ what: String, _ condition: () -> Bool) async throws {
        for _ in 0..<200 where !condition() { try await Task.sleep(for: .milliseconds(50)) }
        #expect(condition(), "\(what) within 10 s")
    }

    /// Both keepers at rest: asleep on the clock with no query out (a query's answer is real database I/O).
    func settle(_ clock: ManualClock, _ members: Member...) async throws {
        while true {
            await clock.waitForSleepers(members.count)
            var querying = false
            for member in members where await member.keeper.isQuerying { querying = true }
            if !querying { return }
            try await Task.sleep(for: .milliseconds(2))  // a database round trip in flight
        }
    }

    @Test func oneLeadsAndACleanStopHandsOver() async throws {
        let (_, url) = try await SharedPostgres.database()
        let clock = ManualClock(now: Date())
        let a = try await Member(url: url, name: "a", clock: clock)
        let b = try await Member(url: url, name: "b", clock: clock)
        a.status.status("ready: 2 exchanges ok")
        b.status.status("ready: 2 exchanges ok")
        let runA = Task { await a.keeper.run() }
        try await waitUntil("a leads") { a.role.role == .leader }
        try await settle(clock, a)
        let runB = Task { await b.keeper.run() }
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

        await a.keeper.stop()
        await runA.value
        #expect(a.role.role == .standby && a.store.epoch == nil)
        await clock.advance(by: .seconds(10))  // b's next ask finds the lease released
        try await waitUntil("b takes over") { b.role.role == .leader }
        #expect(b.led.list.withLock { $0 } == [2])
        #expect(b.lifecycle.statuses.last == "leader (epoch 2); ready: 2 exchanges ok")
        #expect(a.lifecycle.statuses.last == "standby; ready: 2 exchanges ok")
        await b.keeper.stop()
        await runB.value
        await a.store.shutdown()
        await b.store.shutdown()
    }
}
