import Foundation
import Logging
import MarketAlertCore
import MarketAlertExchanges
import MarketAlertKit

/// v3 `listings:`: polls one exchange's market list every `listings.poll_interval` (sooner, with backoff,
/// after a failure) and hands it to the engine (`ListingMachine` decides what is new or gone). A failed or
/// empty list is a failure of the source `<exchange>-listings`, never a list.
package actor ListingPoller {
    private let source: any MarketListSource
    private let interval: Duration
    private let clock: any DaemonClock
    private let label: ClockLabel
    private let logger: Logger
    private let random: @Sendable () -> Double
    private let retry = Backoff(base: .seconds(10), maximum: .seconds(600))
    private var consecutiveFailures = 0

    package init(
        source: any MarketListSource, settings: ListingSettings, clock: any DaemonClock, logger: Logger,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.source = source
        self.interval = settings.pollInterval
        self.clock = clock
        self.label = ProducerKey.listings(source.exchange).pollLabel
        self.logger = logger
        self.random = random
    }

    package nonisolated var sourceName: String { ListingSettings.sourceName(source.exchange) }

    /// Polls at once, then until cancelled.
    package func run(into inbox: EngineInbox) async {
        while !Task.isCancelled {
            let wait = await pollOnce(into: inbox)
            do { try await clock.sleep(for: wait, label: label) } catch { return }
        }
    }

    /// One poll; returns how long to wait before the next.
    @discardableResult
    package func pollOnce(into inbox: EngineInbox) async -> Duration {
        let result = await source.pollMarkets()
        if Task.isCancelled { return .zero }
        switch result {
        case .success(let markets):
            consecutiveFailures = 0
            logger.debug("market list polled", metadata: ["source": "\(sourceName)", "markets": "\(markets.count)"])
            inbox.send(.marketList(source.exchange, markets))
            return interval
        case .failure(let error):
            consecutiveFailures += 1
            logger.warning("market list poll failed", metadata: ["source": "\(sourceName)", "error": "\(error.message)"])
            inbox.send(.sourceFailed(source: sourceName, message: error.message))
            let wait = retry.delay(afterFailures: consecutiveFailures, random: random(), minimum: error.retryAfter)
            return min(wait, interval)
        }
    }
}
