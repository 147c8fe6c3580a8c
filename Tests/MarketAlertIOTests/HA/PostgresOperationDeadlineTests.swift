import Foundation
import Logging
import MarketAlertIO
import MarketAlertTestSupport
import Synchronization
import Testing

/// A store operation that does not end when cancelled (a query PostgresNIO never answers, #25) must not hold
/// its caller: at the deadline the caller gets an error at once, and the operation is cancelled where it runs,
/// under the pool.
@Suite(.enabled(if: PostgresTestServer.isAvailable, "needs PostgreSQL (apt-get install postgresql; scripts/test does)"))
struct PostgresOperationDeadlineTests {
    @Test func anOperationThatIgnoresCancellationReleasesItsCallerAtTheDeadline() async throws {
        let (_, url) = try await SharedPostgres.database()
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_773_108_000))
        let store = PostgresStoreTests.running(
            try PostgresStore(url: try PostgresURL(url), instance: "a", logger: Logger(label: "test"), clock: clock))
        // The operation waits for a gate that only the end of the test opens, whatever cancellation says.
        let gate = Handoff<Void>()
        let released = Mutex(false)
        let caller = Task {
            do {
                _ = try await store.bounded {
                    await Task.detached { try? await gate.take() }.value  // not cancelled with the operation
                    return 1
                }
                return "answered"
            } catch {
                released.withLock { $0 = true }
                return "\(error)"
            }
        }
        try await clock.waitForSleeper(.postgresOperation)
        await clock.advance(by: PostgresStore.defaultOperationTimeout)
        // Released within seconds of real time, while the operation still waits (before this fix the caller
        // waited for the operation, so for ever).
        try await pollUntil("the caller released at the deadline", timeout: .seconds(5)) { released.withLock { $0 } }
        gate.deliver(())
        let outcome = await caller.value
        #expect(outcome.contains("no answer within"))
        await store.shutdown()
    }
}

/// `Handoff`: a value handed over once; a waiter that gives up is released at once.
struct HandoffTests {
    @Test func aValueDeliveredBeforeTheWaitIsTakenAtOnce() async throws {
        let handoff = Handoff<Int>()
        handoff.deliver(7)
        handoff.deliver(8)  // ignored: one value
        #expect(try await handoff.take() == 7)
    }

    @Test func aWaiterGetsTheValueDeliveredLater() async throws {
        let handoff = Handoff<Int>()
        let waiter = Task { try await handoff.take() }
        try await pollUntil("the waiter waiting") { handoff.isAwaited }
        handoff.deliver(3)
        #expect(try await waiter.value == 3)
    }

    @Test func aCancelledWaiterIsReleasedAndALaterValueIsDropped() async throws {
        let handoff = Handoff<Int>()
        let waiter = Task { try await handoff.take() }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        handoff.deliver(1)  // no one to take it: dropped, nothing crashes
    }
}
