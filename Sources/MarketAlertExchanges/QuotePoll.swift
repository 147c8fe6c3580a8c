import Foundation
import MarketAlertCore
import MarketAlertKit
import Synchronization

/// One poll of an exchange: the quotes, and how many watched rows carried a price that was sent but could
/// not be used (NaN, zero, out of `Price.plausibleRange`, padded or full-width digits…). Those rows are
/// dropped from `quotes` (or keep only their usable fields), so without the count a garbled feed would look
/// healthy.
package struct QuotePoll: Sendable, Equatable {
    package var quotes: [Quote]
    /// Watched rows with at least one unusable price field.
    package var rejected: Int
    /// One of them, e.g. `BTCUSDT last "1e39"` (sanitized, for a log line).
    package var rejectedSample: String?

    package init(quotes: [Quote], rejected: Int = 0, rejectedSample: String? = nil) {
        self.quotes = quotes
        self.rejected = rejected
        self.rejectedSample = rejectedSample
    }
}

extension QuoteSource {
    /// `fetchQuotes` with the rejected rows counted. Every source built on `QuoteCollector` reports them
    /// (through a task-local tally, so `fetchQuotes` and the sources' decoders keep their signatures).
    package func fetchPoll(for pairs: Set<MarketPair>) async throws(SourceError) -> QuotePoll {
        let tally = QuotePollTally()
        let result: Result<[Quote], SourceError> = await QuotePollTally.$current.withValue(tally) {
            do throws(SourceError) {
                return .success(try await fetchQuotes(for: pairs))
            } catch {
                return .failure(error)
            }
        }
        // Counted whether or not the poll yielded a quote: a body whose only watched row is priced 0 fails
        // as `.empty`, and that row is still one quote dropped.
        let counted = tally.snapshot
        FetchMetrics.rejectedQuotes(exchange, reason: "invalid_price", count: counted.rows)
        let quotes = try result.get()
        return QuotePoll(quotes: quotes, rejected: counted.rows, rejectedSample: counted.sample)
    }

    /// `poll` with the rejected rows counted: one poll as a value.
    package func pollCounted(_ pairs: Set<MarketPair>) async -> Result<QuotePoll, SourceError> {
        do throws(SourceError) {
            return .success(try await fetchPoll(for: pairs))
        } catch {
            return .failure(error)
        }
    }
}

/// Where `QuoteCollector.finish()` reports rejected rows during a `fetchPoll` (a source may decode several
/// bodies per poll, concurrently: Coinbase, Bithumb).
package final class QuotePollTally: Sendable {
    @TaskLocal static package var current: QuotePollTally?

    private let state = Mutex<(rows: Int, sample: String?)>((0, nil))

    package func record(rows: Int, sample: String?) {
        state.withLock { state in
            state.rows += rows
            if state.sample == nil { state.sample = sample }
        }
    }

    package var snapshot: (rows: Int, sample: String?) { state.withLock { $0 } }
}
