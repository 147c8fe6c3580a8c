import Foundation
import MarketAlertCore
import MarketAlertIO
import Testing

/// `premium_history` in a real SQLite file: samples ride on the publication's transaction, a slot written
/// twice is merged, retention prunes, the warm-up folds, a read-only handle reads beside the writer.
@Suite struct HistoryStoreTests {
    static let t0 = Date(timeIntervalSince1970: 1_795_391_880)

    static func sample(_ minute: Int, _ pct: Double, asset: String = "BTC", notifications: Int = 0) -> HistorySample {
        HistorySample(rule: "kimchi", asset: asset, at: t0 + Double(minute) * 60, minPct: pct - 0.1, maxPct: pct, lastPct: pct, notifications: notifications)
    }

    static func directory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("history-\(UUID().uuidString)").path
    }

    @Test func samplesAreWrittenWithThePublicationAndReadBackInOrder() async throws {
        let dir = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try SQLiteStore(directory: dir)
        var publication = Publication()
        publication.history = [Self.sample(2, 1.2), Self.sample(0, 1.0), Self.sample(1, 1.1), Self.sample(1, 9, asset: "ETH")]
        try await store.commit(publication, at: Self.t0)
        let read = try await store.samples(rule: "kimchi", asset: "BTC", since: Self.t0, until: Self.t0 + 120)
        #expect(read.map(\.maxPct) == [1.0, 1.1])  // until is exclusive
        #expect(read.first == Self.sample(0, 1.0))
        // A restart within a slot writes it again: merged, never duplicated.
        var again = Publication()
        again.history = [HistorySample(rule: "kimchi", asset: "BTC", at: Self.t0, minPct: 0.5, maxPct: 0.95, lastPct: 0.7, notifications: 2)]
        try await store.commit(again, at: Self.t0 + 60)
        let merged = try #require(try await store.samples(rule: "kimchi", asset: "BTC", since: Self.t0, until: Self.t0 + 1).first)
        #expect(merged.minPct == 0.5 && merged.maxPct == 1.0 && merged.lastPct == 0.7 && merged.notifications == 2)
        // Beside the writer, a read-only handle (as `marketalertd history` opens it) sees the same rows.
        let reader = try SQLiteStore.openReadOnly(directory: dir)
        #expect(try await reader.samples(rule: "kimchi", asset: "ETH", since: Self.t0, until: Self.t0 + 3600).map(\.maxPct) == [9])
    }

    @Test func retentionPrunesOnlySamplesOlderThanTheCutoff() async throws {
        let dir = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try SQLiteStore(directory: dir)
        var publication = Publication()
        publication.history = (0..<10).map { Self.sample($0 * 60, Double($0)) }  // hourly
        try await store.commit(publication, at: Self.t0)
        var prune = Publication()
        prune.pruneHistoryBefore = Self.t0 + 4 * 3600
        prune.history = [Self.sample(600, 10)]
        #expect(!prune.isEmpty)
        try await store.commit(prune, at: Self.t0 + 36_000)
        let left = try await store.samples(rule: "kimchi", asset: "BTC", since: .distantPast, until: .distantFuture)
        #expect(left.map(\.maxPct) == [4, 5, 6, 7, 8, 9, 10])
    }

    @Test func theWarmUpFoldsEveryKeyOldestFirstAndTheBucketsSummarise() async throws {
        let store = try SQLiteStore(inMemory: ())
        var publication = Publication()
        publication.history = [Self.sample(3, 3), Self.sample(1, 1), Self.sample(2, 2, asset: "ETH"), Self.sample(0, 0.5)]
        try await store.commit(publication, at: Self.t0)
        let seen = try await store.fold(since: Self.t0 + 60, into: [String]()) { list, sample in list.append("\(sample.asset)@\(sample.maxPct)") }
        #expect(seen == ["BTC@1.0", "ETH@2.0", "BTC@3.0"])
        let buckets = try await store.buckets(since: Self.t0, until: Self.t0 + 240, count: 2)
        let btc = try #require(buckets["premium/kimchi/BTC"])
        #expect(btc.map(\.index) == [0, 1] && btc.map(\.maxPct) == [1, 3])
        #expect(abs(btc[0].minPct - 0.4) < 1e-9 && abs(btc[1].minPct - 2.9) < 1e-9)
        #expect(buckets["premium/kimchi/ETH"]?.map(\.index) == [1])
    }
}
