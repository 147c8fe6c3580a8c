import Foundation
import GRDB
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// A corrupt row of premium history (`min_pct = 'abc'`, a NaN) is skipped and counted by every read path of
/// both stores, never fatal: before, GRDB's non-optional row subscripts trapped on it (SIGILL), killing the
/// daemon on an unauthenticated `GET /api/v1/history`.
@Suite struct CorruptHistoryRowTests {
    static let t0 = HistoryStoreContract.t0

    static func corrupt(_ store: SQLiteStore) async throws {
        var publication = Publication()
        publication.history = (0..<4).map { HistoryStoreContract.sample($0, 1.0 + Double($0)) }
        try await store.commit(publication, at: t0)
        try await store.writer.write { db in
            try db.execute(sql: "UPDATE premium_history SET min_pct = 'abc' WHERE at = ?", arguments: [(t0 + 60).timeIntervalSince1970])
            try db.execute(sql: "UPDATE premium_history SET max_pct = 'x', notifications = 'many' WHERE at = ?", arguments: [(t0 + 120).timeIntervalSince1970])
        }
    }

    @Test func sqliteSkipsAndCountsUnreadableRowsOnEveryReadPath() async throws {
        let store = try SQLiteStore(inMemory: ())
        try await Self.corrupt(store)
        let before = UnreadableHistoryRows.total
        let read = try await store.samples(rule: "kimchi", asset: "BTC", since: Self.t0, until: Self.t0 + 3600)
        #expect(read.map(\.maxPct) == [1, 4])
        #expect(UnreadableHistoryRows.total - before >= 2)
        let limited = try await store.samples(rule: "kimchi", asset: "BTC", since: Self.t0, until: Self.t0 + 3600, limit: 1)
        #expect(limited.map(\.maxPct) == [1])
        let folded = try await store.fold(since: Self.t0, into: [Double]()) { $0.append($1.maxPct) }
        #expect(folded == [1, 4])
        let buckets = try await store.buckets(since: Self.t0, until: Self.t0 + 240, count: 4)
        #expect(buckets["premium/kimchi/BTC"]?.map(\.index) == [0, 3], "\(buckets)")
        #expect(buckets["premium/kimchi/BTC"]?.allSatisfy { $0.maxPct.isFinite && $0.minPct.isFinite } == true)
    }

    @Test(.enabled(if: PostgresTestServer.isAvailable, "needs PostgreSQL"))
    func postgresSkipsNonFiniteRows() async throws {
        let store = try await PostgresHistoryStoreTests.leader()
        var publication = Publication()
        var bad = HistoryStoreContract.sample(1, 2)
        bad.minPct = .nan
        var infinite = HistoryStoreContract.sample(2, 3)
        infinite.maxPct = .infinity
        publication.history = [HistoryStoreContract.sample(0, 1), bad, infinite, HistoryStoreContract.sample(3, 4)]
        try await store.commit(publication, at: Self.t0)
        let read = try await store.samples(rule: "kimchi", asset: "BTC", since: Self.t0, until: Self.t0 + 3600)
        #expect(read.map(\.maxPct) == [1, 4])
        let folded = try await store.fold(since: Self.t0, into: [Double]()) { $0.append($1.maxPct) }
        #expect(folded == [1, 4])
        let buckets = try await store.buckets(since: Self.t0, until: Self.t0 + 240, count: 4)
        #expect(buckets.values.flatMap { $0 }.allSatisfy { $0.maxPct.isFinite && $0.minPct.isFinite })
        await store.shutdown()
    }
}
