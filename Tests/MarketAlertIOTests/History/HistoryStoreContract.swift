import Foundation
import MarketAlertCore
import MarketAlertIO
import Testing

/// What every history backend must do (SQLite here, PostgreSQL under HA): samples ride on a publication's
/// commit and read back in order, a slot written twice is merged, retention prunes, the warm-up folds every
/// key oldest first, and the sparkline buckets summarise. Each check expects an empty store it may write.
enum HistoryStoreContract {
    static let t0 = Date(timeIntervalSince1970: 1_795_391_880)

    static func sample(_ minute: Int, _ pct: Double, asset: String = "BTC", notifications: Int = 0) -> HistorySample {
        HistorySample(rule: "kimchi", asset: asset, at: t0 + Double(minute) * 60, minPct: pct - 0.1, maxPct: pct, lastPct: pct, notifications: notifications)
    }

    static func writtenInOrderAndMerged(_ store: some AlertStore & HistoryStore) async throws {
        var publication = Publication()
        publication.history = [sample(2, 1.2), sample(0, 1.0), sample(1, 1.1), sample(1, 9, asset: "ETH")]
        try await store.commit(publication, at: t0)
        let read = try await store.samples(rule: "kimchi", asset: "BTC", since: t0, until: t0 + 120)
        #expect(read.map(\.maxPct) == [1.0, 1.1])  // until is exclusive
        #expect(read.first == sample(0, 1.0))
        // A restart within a slot writes it again: merged, never duplicated.
        var again = Publication()
        again.history = [HistorySample(rule: "kimchi", asset: "BTC", at: t0, minPct: 0.5, maxPct: 0.95, lastPct: 0.7, notifications: 2)]
        try await store.commit(again, at: t0 + 60)
        let merged = try #require(try await store.samples(rule: "kimchi", asset: "BTC", since: t0, until: t0 + 1).first)
        #expect(merged.minPct == 0.5 && merged.maxPct == 1.0 && merged.lastPct == 0.7 && merged.notifications == 2)
        #expect(try await store.samples(rule: "kimchi", asset: "ETH", since: t0, until: t0 + 3600).map(\.maxPct) == [9])
    }

    static func retentionPrunesOnlyOlderSamples(_ store: some AlertStore & HistoryStore) async throws {
        var publication = Publication()
        publication.history = (0..<10).map { sample($0 * 60, Double($0)) }  // hourly
        try await store.commit(publication, at: t0)
        var prune = Publication()
        prune.pruneHistoryBefore = t0 + 4 * 3600
        prune.history = [sample(600, 10)]
        #expect(!prune.isEmpty)
        try await store.commit(prune, at: t0 + 36_000)
        let left = try await store.samples(rule: "kimchi", asset: "BTC", since: .distantPast, until: .distantFuture)
        #expect(left.map(\.maxPct) == [4, 5, 6, 7, 8, 9, 10])
    }

    static func warmUpFoldsAndBucketsSummarise(_ store: some AlertStore & HistoryStore) async throws {
        var publication = Publication()
        publication.history = [sample(3, 3), sample(1, 1), sample(2, 2, asset: "ETH"), sample(0, 0.5)]
        try await store.commit(publication, at: t0)
        let seen = try await store.fold(since: t0 + 60, into: [String]()) { list, sample in list.append("\(sample.asset)@\(sample.maxPct)") }
        #expect(seen == ["BTC@1.0", "ETH@2.0", "BTC@3.0"])
        let buckets = try await store.buckets(since: t0, until: t0 + 240, count: 2)
        let btc = try #require(buckets["premium/kimchi/BTC"])
        #expect(btc.map(\.index) == [0, 1] && btc.map(\.maxPct) == [1, 3])
        #expect(abs(btc[0].minPct - 0.4) < 1e-9 && abs(btc[1].minPct - 2.9) < 1e-9)
        #expect(buckets["premium/kimchi/ETH"]?.map(\.index) == [1])
    }
}
