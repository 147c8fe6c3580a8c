import Foundation
import Logging
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Synchronization
import Testing

/// The one publish path under HA, on a real PostgreSQL: a standby publishes nothing; a leader delivers only
/// what a fenced commit saved; a commit the fence refuses is delivered nowhere and reported to the lease
/// keeper's channel as typed events (the store's refusal, then the publisher's failed commit).
@Suite(.enabled(if: PostgresTestServer.isAvailable, "needs PostgreSQL (apt-get install postgresql; scripts/test does)"))
struct HAPublisherTests {
    @Test func onlyAFencedCommitIsDelivered() async throws {
        let (server, url) = try await SharedPostgres.database()
        let database = String(url.split(separator: "/").last?.split(separator: "?").first ?? "")
        let store = try await PostgresStoreTests.open(url)
        defer { Task { await store.shutdown() } }
        let sink = RecordingSink()
        let events = LeadershipEvents()
        store.reportFencing(to: events)
        let publisher = AlertPublisher(store: store, sinks: [sink], clock: SystemClock(), logger: Logger(label: "test"))
        await publisher.enableHA(reportingTo: events)

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
        #expect(await publisher.leadingEpoch == nil)
        #expect(try await store.pendingEvents().isEmpty)
        events.finish()
        var reported: [LeadershipEvent] = []
        for await event in events.stream { reported.append(event) }
        #expect(reported.count == 2, "\(reported)")
        #expect(reported.first == .fenced(epoch: epoch))
        guard case .commitFailed(let failedEpoch, let reason) = reported.last else {
            Issue.record("no commit failure reported: \(reported)")
            return
        }
        #expect(failedEpoch == epoch && reason.contains("fenced"), "\(reason)")
    }

    /// What the routes hold is in the shared store: a new leader takes it over with the lease. The inhibitor
    /// the old leader routed still holds back the notification the new leader routes.
    @Test func aNewLeaderTakesOverWhatTheRoutesHeld() async throws {
        let (_, url) = try await SharedPostgres.database()
        let store = try await PostgresStoreTests.open(url)
        defer { Task { await store.shutdown() } }
        let routing = RoutingSettings(inhibit: [InhibitRule(source: NotificationMatch(kind: .source), target: NotificationMatch(kind: .fx))])
        let epoch = try await PostgresStoreTests.lead(store)

        let old = AlertPublisher(store: store, sinks: [RecordingSink()], clock: SystemClock(), logger: Logger(label: "test"))
        await old.configureRouting(routing)
        await old.enableHA(reportingTo: LeadershipEvents())
        await old.beginLeading(epoch: epoch)
        await old.publish(Publication(events: [SampleEvents.source(id: "inhibitor")]))
        await old.stopLeading()

        let sink = RecordingSink()
        let successor = AlertPublisher(store: store, sinks: [sink], clock: SystemClock(), logger: Logger(label: "test"))
        await successor.configureRouting(routing)
        await successor.enableHA(reportingTo: LeadershipEvents())
        await successor.publish(Publication(events: [SampleEvents.fx(id: "as-standby")]))  // a standby routes nothing
        await successor.beginLeading(epoch: epoch)
        await successor.publish(Publication(events: [SampleEvents.fx(id: "target")]))
        #expect(sink.events.map(\.id) == ["target"])
        #expect(sink.events.first?.inhibitedBy == ["source/binance"])
    }
}
