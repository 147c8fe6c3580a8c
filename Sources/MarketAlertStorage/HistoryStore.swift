import Foundation
import Logging
import MarketAlertCore
import MarketAlertKit
import Synchronization

/// Reads premium history (written by `AlertStore.commit` with the publication that closed the slots):
/// the API, the status page's sparklines, `marketalertd history` and the engine's warm-up at start.
package protocol HistoryStore: Sendable {
    /// Samples of one rule and asset with `since <= at < until`, oldest first, at most `limit` of them (nil:
    /// all). A row that cannot be read (a corrupt value) is skipped and counted in `UnreadableHistoryRows`.
    func samples(rule: String, asset: String, since: Date, until: Date, limit: Int?) async throws -> [HistorySample]
    /// Folds every key's samples with `at >= since`, oldest first, without holding them as a list (warm-up
    /// at start reads a month of samples).
    func fold<Value: Sendable>(since: Date, into initial: Value, _ add: @escaping @Sendable (inout Value, HistorySample) -> Void) async throws -> Value
    /// Per key (`premium/<rule>/<asset>`), the min and max pct of each of `count` equal buckets of
    /// `[since, until)` that holds samples (the status page's sparklines: one query for every key).
    func buckets(since: Date, until: Date, count: Int) async throws -> [String: [HistoryBucket]]
}

extension HistoryStore {
    /// Every sample of one rule and asset with `since <= at < until`, oldest first.
    package func samples(rule: String, asset: String, since: Date, until: Date) async throws -> [HistorySample] {
        try await samples(rule: rule, asset: asset, since: since, until: until, limit: nil)
    }
}

/// Rows of premium history that no read path could decode (`min_pct = 'abc'` written by hand or by a
/// damaged disk): every read skips them, counts them here and logs a warning; none is fatal.
package enum UnreadableHistoryRows {
    private static let count = Atomic<Int>(0)
    private static let logger = Logger(label: "marketalertd.history")

    /// Rows skipped by this process so far.
    package static var total: Int { count.load(ordering: .relaxed) }

    package static func record(_ skipped: Int, reading: String) {
        guard skipped > 0 else { return }
        count.add(skipped, ordering: .relaxed)
        logger.warning("premium history: skipped \(skipped) unreadable row(s) while reading \(reading)", metadata: ["skipped": "\(skipped)"])
    }
}
