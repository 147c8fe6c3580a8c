import Foundation
import Logging
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Synchronization
import Testing

/// The one publish path under HA, on a real PostgreSQL: a standby publishes nothing; a leader delivers only
/// what a fenced commit saved; a commit the fence refuses is delivered nowhere and reported.
@Suite(.enabled(if: PostgresTestServer.isAvailable, "needs PostgreSQL (apt-get install postgresql; scripts/test does)"))
struct HAPublisherTests {
    @Test func onlyAFencedCommitIsDelivered() async throws {
        let (server, url) = try await SharedPostgres.database()
        let database = String(url.split(separator: "/").last?.split(separator: "?").first ?? "")
        let store = try await PostgresStoreTests.open(url)
        defer { Task { await store.shutdown() } }
        let sink = RecordingSink()
        let failures = Mutex(0)
        let publisher = AlertPublisher(store: store, sinks: [sink], clock: SystemClock(), logger: Logger(label: "test"))
        await publisher.enableHA { _ in failures.withLock { $0 += 1 } }

        // A standby: decided, but neither stored nor delivered.
        await publisher.publish(Publication(events: [SampleEvents.fx(id: "standby")]))
        #expect(sink.events.isEmpty)
        #expect(try await store.pendingEvents().isEmpty)

        // Something the previous leader committed but did not clear goes out first at the takeover.
        let epoch = try await PostgresStoreTests.lead(store)
        try await store.commit(Publication(events: [SampleEvents.source(id: "left-pending")]), at: Date())
        await publisher.beginLeading(epoch: epoch)
        #expect(sink.events.map(\.id) == ["left-pending"])
        await publisher.publish(Publication(events: [SampleEvents.fx(id: "leader")]))
        #expect(sink.events.map(\.id) == ["left-pending", "leader"])
        #expect(try await store.pendingEvents().isEmpty, "delivered and cleared")

        // The lease runs out in the database: the commit is refused, nothing is delivered, the keeper is told.
        try await server.psql("UPDATE ha_lease SET expires_at = clock_timestamp() - interval '1 second'", database: database)
        await publisher.publish(Publication(events: [SampleEvents.fx(id: "fenced")]))
        #expect(sink.events.map(\.id) == ["left-pending", "leader"])
        #expect(failures.withLock { $0 } == 1)
        #expect(await publisher.leadingEpoch == nil)
        #expect(try await store.pendingEvents().isEmpty)
    }
}
