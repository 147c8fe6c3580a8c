import CoreMetrics
import Foundation
import MarketAlertCore
import MarketAlertKit

/// What the producers report through swift-metrics (a no-op until the daemon bootstraps the metrics system
/// with its registry): REST request durations per source, and quotes dropped before they reach the book.
package enum FetchMetrics {
    /// Times one REST request of `source` (wall time, whatever clock the producer sleeps on).
    package static func timed<T, E: Error>(
        _ source: String, isolation: isolated (any Actor)? = #isolation, _ body: () async throws(E) -> T
    ) async throws(E) -> T {
        let started = ContinuousClock.now
        defer {
            let elapsed = ContinuousClock.now - started
            let nanoseconds = elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
            CoreMetrics.Timer(label: MetricNames.fetchDuration, dimensions: [("source", source)]).recordNanoseconds(nanoseconds)
        }
        return try await body()
    }

    /// A poll of `exchange` whose response yielded no quote: counted by why (`parse_error`, `api_error`,
    /// `empty`). Transport failures (timeouts, refused connections, HTTP errors) delivered no quotes to
    /// reject; `source_up` shows them.
    package static func rejected(_ exchange: ExchangeID, _ error: SourceError) {
        let reason: String
        switch error.kind {
        case .decode: reason = "parse_error"
        case .api: reason = "api_error"
        case .empty: reason = "empty"
        case .timeout, .connection, .http, .rateLimited: return
        }
        CoreMetrics.Counter(label: MetricNames.quotesRejected, dimensions: [("exchange", exchange.rawValue), ("reason", reason)]).increment()
    }

    /// `count` quotes of `exchange` dropped for `reason`: REST rows with an unusable price, stream frames that
    /// were malformed, oversized, priced impossibly or crossed. Rare by nature, so the counter is looked up
    /// per call.
    package static func rejectedQuotes(_ exchange: ExchangeID, reason: String, count: Int = 1) {
        guard count > 0 else { return }
        CoreMetrics.Counter(label: MetricNames.quotesRejected, dimensions: [("exchange", exchange.rawValue), ("reason", reason)])
            .increment(by: Int64(count))
    }

    /// A book of `exchange` thrown away and rebuilt from a fresh snapshot, by why (`sequence_gap`, `checksum`,
    /// `reconnect`, `stale`).
    package static func bookResync(_ exchange: ExchangeID, reason: BookResyncReason) {
        CoreMetrics.Counter(label: MetricNames.bookResyncs, dimensions: [("exchange", exchange.rawValue), ("reason", reason.rawValue)])
            .increment()
    }

    /// The `reason` label of a stream drop, or nil for a frame that carried no quote (an unknown message kind).
    package static func reason(_ drop: StreamDropReason) -> String? {
        switch drop {
        case .malformed: "parse_error"
        case .invalidPrice: "invalid_price"
        case .crossedBook: "crossed_book"
        case .oversized: "oversized"
        case .outOfOrder: "out_of_order"
        case .unknownMessage: nil
        }
    }
}
