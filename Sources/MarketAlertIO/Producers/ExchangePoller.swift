import Foundation
import MarketAlertCore

/// Polls one exchange's REST ticker API: once at once, then every `poll_interval` (with backoff and jitter
/// after failures, at least the server's Retry-After), pushing each outcome into the engine's inbox. Never
/// throws; knows nothing of alerts, sinks or stores.
package struct ExchangePoller: Sendable {
    package let exchange: ExchangeID
    let source: any QuoteSource
    let pairs: Set<MarketPair>
    let interval: Duration
    let clock: any DaemonClock
    /// What its sleeps are named on the clock (made once: a sleep costs no string).
    let label: ClockLabel
    let random: @Sendable () -> Double

    package init(
        settings: ExchangeSettings, source: any QuoteSource, pairs: Set<MarketPair>, clock: any DaemonClock,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.exchange = settings.id
        self.source = source
        self.pairs = pairs
        self.interval = settings.pollInterval
        self.clock = clock
        self.label = ProducerKey.exchange(settings.id).pollLabel
        self.random = random
    }

    /// What a poll covers now.
    package enum Scope: Sendable, Equatable {
        /// Every watched pair, as a snapshot of the exchange (no stream, or the stream is not live).
        case all
        /// Only these pairs, merged into the book (the stream is live but does not carry them); nothing
        /// when empty.
        case only(Set<MarketPair>)
    }

    /// Polls until cancelled, each time what `scope` says (a live stream narrows it to the pairs the
    /// stream does not carry, usually none: then it only waits). `afterFirstFetch`: the caller has just
    /// polled (`pollOnce`), so the first poll waits one interval.
    package func run(
        into inbox: EngineInbox, afterFirstFetch: Bool = false, scope: @escaping @Sendable () -> Scope = { .all }
    ) async {
        let backoff = Backoff(base: interval, maximum: max(interval, .seconds(120)))
        var failures = 0
        if afterFirstFetch {
            do { try await clock.sleep(for: interval, label: label) } catch { return }
        }
        while !Task.isCancelled {
            let outcome: Result<[Quote], SourceError>
            switch scope() {
            case .all:
                outcome = await pollOnce(into: inbox)
            case .only(let some) where some.isEmpty:
                failures = 0
                do { try await clock.sleep(for: interval, label: label) } catch { return }
                continue
            case .only(let some):
                outcome = await poll(some, into: inbox, delivery: .update)
            }
            let wait: Duration
            switch outcome {
            case .success:
                failures = 0
                wait = interval
            case .failure(let error):
                failures += 1
                wait = backoff.delay(afterFailures: failures, random: random(), minimum: error.retryAfter)
            }
            do { try await clock.sleep(for: wait, label: label) } catch { return }
        }
    }

    /// One poll of every watched pair, as a snapshot of the exchange; its outcome goes to the inbox (unless
    /// the task was cancelled meanwhile).
    @discardableResult
    package func pollOnce(into inbox: EngineInbox) async -> Result<[Quote], SourceError> {
        await poll(pairs, into: inbox, delivery: .snapshot)
    }

    /// One poll of `pairs`. A snapshot replaces what the book holds of the exchange, and its failure is the
    /// exchange's. An update (some pairs beside a live stream) merges, and its failure is counted in the
    /// metrics only: the exchange's health is its live stream's, and `source/<exchange>` means neither stream
    /// nor REST works.
    func poll(_ pairs: Set<MarketPair>, into inbox: EngineInbox, delivery: QuoteDelivery) async -> Result<[Quote], SourceError> {
        let outcome = await FetchMetrics.timed(exchange.rawValue) { await source.poll(pairs) }
        guard !Task.isCancelled else { return outcome }
        switch outcome {
        case .success(let quotes):
            inbox.send(.quotes(exchange, quotes, delivery))
        case .failure(let error):
            FetchMetrics.rejected(exchange, error)
            if delivery == .snapshot { inbox.send(.sourceFailed(source: exchange.rawValue, message: error.message)) }
        }
        return outcome
    }
}
