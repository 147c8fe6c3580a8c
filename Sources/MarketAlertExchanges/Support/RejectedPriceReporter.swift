import Foundation
import Logging
import MarketAlertCore
import MarketAlertKit
import Synchronization

/// Logs the ticker rows each exchange's polls rejected (rate-limited by `RejectedPriceLog`) and keeps the
/// per-source totals, shared by every poller of the daemon.
package final class RejectedPriceReporter: Sendable {
    private let log: Mutex<RejectedPriceLog>
    private let clock: any DaemonClock
    private let logger: Logger

    package init(clock: any DaemonClock, logger: Logger, interval: Duration = .seconds(600)) {
        self.log = Mutex(RejectedPriceLog(interval: interval))
        self.clock = clock
        self.logger = logger
    }

    /// Records one poll; logs a warning when `RejectedPriceLog` says so.
    package func report(_ exchange: ExchangeID, _ poll: QuotePoll) {
        guard poll.rejected > 0 else { return }
        let now = clock.now()
        let line = log.withLock { $0.record(source: exchange.rawValue, rows: poll.rejected, sample: poll.rejectedSample, now: now) }
        if let line { logger.warning("\(line)", metadata: ["source": "\(exchange.rawValue)"]) }
    }

    /// Rows rejected per source since start.
    package var totals: [String: Int] { log.withLock { $0.totals } }

    /// `source` with its rejected rows reported here on every poll.
    package func reporting(_ source: any QuoteSource) -> any QuoteSource {
        RejectionReportingQuoteSource(inner: source, reporter: self)
    }
}

/// A quote source whose polls report their rejected rows to a `RejectedPriceReporter`.
package struct RejectionReportingQuoteSource: QuoteSource {
    package let inner: any QuoteSource
    package let reporter: RejectedPriceReporter

    package var exchange: ExchangeID { inner.exchange }

    package func fetchQuotes(for pairs: Set<MarketPair>) async throws(SourceError) -> [Quote] {
        let poll = try await inner.fetchPoll(for: pairs)
        reporter.report(inner.exchange, poll)
        return poll.quotes
    }
}
