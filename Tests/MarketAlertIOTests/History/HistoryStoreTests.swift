import Foundation
import MarketAlertCore
import MarketAlertIO
import Testing

/// `premium_history` in a real SQLite file: samples ride on the publication's transaction, a slot written
/// twice is merged, retention prunes, the warm-up folds, a read-only handle reads beside the writer.
@Suite struct HistoryStoreTests {
    static let t0 = HistoryStoreContract.t0

    static func directory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("history-\(UUID().uuidString)").path
    }

    @Test func samplesAreWrittenWithThePublicationAndReadBackInOrder() async throws {
        let dir = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try SQLiteStore(directory: dir)
        try await HistoryStoreContract.writtenInOrderAndMerged(store)
        // Beside the writer, a read-only handle (as `marketalertd history` opens it) sees the same rows.
        let reader = try SQLiteStore.openReadOnly(directory: dir)
        #expect(try await reader.samples(rule: "kimchi", asset: "ETH", since: Self.t0, until: Self.t0 + 3600).map(\.maxPct) == [9])
    }

    @Test func retentionPrunesOnlySamplesOlderThanTheCutoff() async throws {
        try await HistoryStoreContract.retentionPrunesOnlyOlderSamples(try SQLiteStore(inMemory: ()))
    }

    @Test func theWarmUpFoldsEveryKeyOldestFirstAndTheBucketsSummarise() async throws {
        try await HistoryStoreContract.warmUpFoldsAndBucketsSummarise(try SQLiteStore(inMemory: ()))
    }
}
