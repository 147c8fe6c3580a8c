import Foundation
import Logging
import MarketAlertIO
import MarketAlertTestSupport
import NIOCore
import Synchronization
import Testing

/// A query cancelled in flight closes its connection, and the connection goes back to the pool only once it has
/// closed, so the pool never lends it again: the next queries are answered and the store's shutdown returns.
/// (Handed back as soon as the query failed, the closing connection was lent again as idle; PostgresNIO drops a
/// query written to a channel that has closed without answering it, and the store's `run()` waited for that
/// operation for ever: the hang of `LeaseKeeperTests.aRenewalThatNeverAnswersStepsDownOnVirtualTime`, #25.)
@Suite(.enabled(if: PostgresTestServer.isAvailable, "needs PostgreSQL (apt-get install postgresql; scripts/test does)"))
struct PostgresCancelledQueryTests {
    final class Flags: Sendable {
        let list = Mutex<[Bool]>([])
    }

    final class Flag: Sendable {
        let value = Mutex(false)
    }

    @Test func aCancelledQueryHandsItsConnectionBackOnlyOnceClosedAndTheNextQueriesAreAnswered() async throws {
        let (server, url) = try await SharedPostgres.database()
        let database = String(url.split(separator: "/").last?.split(separator: "?").first ?? "")
        let sleepers = "SELECT count(*) FROM pg_stat_activity WHERE datname = '\(database)' AND wait_event = 'PgSleep'"
        let store = try await PostgresStoreTests.open(url)
        let logger = store.logger
        let realTime = ManualClock(now: Date())  // only for its real-time waits with deadlines
        // Per round: whether the connection had closed when the cancelled query handed it back to the pool.
        let closedWhenHandedBack = Flags()
        for round in 1...5 {
            let query = Task {
                try await store.client.withConnection { connection in
                    let closed = Flag()
                    connection.closeFuture.whenComplete { _ in closed.value.withLock { $0 = true } }
                    defer { closedWhenHandedBack.list.withLock { $0.append(closed.value.withLock { $0 }) } }
                    try await PostgresStore.closingWhenCancelled(connection) {
                        for try await _ in try await connection.query("SELECT pg_sleep(30)", logger: logger) {}
                    }
                }
            }
            try await realTime.waitUntil("round \(round): the query sleeping at the database", timeout: .seconds(10)) { () async -> Bool in
                (try? await server.psql(sleepers, database: database)) == "1"
            }
            query.cancel()
            await #expect(throws: (any Error).self) { try await query.value }
            // The backend sleeps on after its client left: end it so the next round counts one sleeper.
            _ = try await server.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(database)' AND wait_event = 'PgSleep'")
            let answer = try await store.read { connection in
                var value = 0
                for try await one in try await connection.query("SELECT 1", logger: logger).decode(Int.self) { value = one }
                return value
            }
            #expect(answer == 1, "round \(round): the next query is answered on a live connection")
        }
        #expect(closedWhenHandedBack.list.withLock { $0 } == [true, true, true, true, true])

        let stopped = Flag()
        let stop = Task {
            await store.shutdown()
            stopped.value.withLock { $0 = true }
        }
        try await pollUntil("the store's shutdown returned", timeout: .seconds(10)) { stopped.value.withLock { $0 } }
        await stop.value
    }
}
