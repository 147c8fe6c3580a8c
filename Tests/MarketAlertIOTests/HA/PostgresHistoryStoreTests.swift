import Foundation
import Logging
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// Premium history in PostgreSQL: the same contract as SQLite's (`HistoryStoreContract`), written only by
/// the lease holder (the samples ride on the fenced commit), readable by a standby.
@Suite(.enabled(if: PostgresTestServer.isAvailable, "needs PostgreSQL (apt-get install postgresql; scripts/test does)"))
struct PostgresHistoryStoreTests {
    static func leader() async throws -> PostgresStore {
        let (_, url) = try await SharedPostgres.database()
        let store = try await PostgresStoreTests.open(url)
        _ = try await PostgresStoreTests.lead(store)
        return store
    }

    @Test func samplesAreWrittenInOrderAndASlotWrittenTwiceIsMerged() async throws {
        let store = try await Self.leader()
        try await HistoryStoreContract.writtenInOrderAndMerged(store)
        await store.shutdown()
    }

    @Test func retentionPrunesOnlyOlderSamples() async throws {
        let store = try await Self.leader()
        try await HistoryStoreContract.retentionPrunesOnlyOlderSamples(store)
        await store.shutdown()
    }

    @Test func theWarmUpFoldsAndTheBucketsSummarise() async throws {
        let store = try await Self.leader()
        try await HistoryStoreContract.warmUpFoldsAndBucketsSummarise(store)
        await store.shutdown()
    }

    @Test func aStandbyWritesNoHistoryButReadsTheLeaders() async throws {
        let (_, url) = try await SharedPostgres.database()
        let leader = try await PostgresStoreTests.open(url, instance: "a")
        let standby = try await PostgresStoreTests.open(url, instance: "b")
        _ = try await PostgresStoreTests.lead(leader)
        var theirs = Publication()
        theirs.history = [HistoryStoreContract.sample(0, 1.5)]
        try await leader.commit(theirs, at: HistoryStoreContract.t0)
        var mine = Publication()
        mine.history = [HistoryStoreContract.sample(1, 7)]
        await #expect(throws: HAWriteRefused.notLeader) { try await standby.commit(mine, at: HistoryStoreContract.t0) }
        let read = try await standby.samples(rule: "kimchi", asset: "BTC", since: .distantPast, until: .distantFuture)
        #expect(read.map(\.maxPct) == [1.5])
        await leader.shutdown()
        await standby.shutdown()
    }
}
