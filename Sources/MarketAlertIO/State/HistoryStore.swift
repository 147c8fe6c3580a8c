import Foundation
import MarketAlertCore

/// Reads premium history (written by `AlertStore.commit` with the publication that closed the slots):
/// the API, the status page's sparklines, `marketalertd history` and the engine's warm-up at start.
package protocol HistoryStore: Sendable {
    /// Samples of one rule and asset with `since <= at < until`, oldest first.
    func samples(rule: String, asset: String, since: Date, until: Date) async throws -> [HistorySample]
    /// Folds every key's samples with `at >= since`, oldest first, without holding them as a list (warm-up
    /// at start reads a month of samples).
    func fold<Value: Sendable>(since: Date, into initial: Value, _ add: @escaping @Sendable (inout Value, HistorySample) -> Void) async throws -> Value
    /// Per key (`premium/<rule>/<asset>`), the min and max pct of each of `count` equal buckets of
    /// `[since, until)` that holds samples (the status page's sparklines: one query for every key).
    func buckets(since: Date, until: Date, count: Int) async throws -> [String: [HistoryBucket]]
}
