import Foundation
import Logging
import MarketAlertCore
import MarketAlertExchanges

/// Polls one end-of-day market-price source for `ipo.value` (TWSE close, TPEx close, TPEx emerging
/// average): once at start, then once per trading day after the close (``EndOfDaySchedule``), sooner with
/// backoff after a failure (never later than the next slot). Each poll goes to the engine as a
/// `MarketPriceReport` (a failure as a failed report, so windows stop waiting for it) along with the
/// source's health, like every other source.
package actor IPOMarketPricePoller {
    package typealias Fetch = @Sendable () async throws(SourceError) -> MarketPriceReport

    package nonisolated let source: MarketPriceSource
    private let fetch: Fetch
    private let schedule: EndOfDaySchedule
    private let clock: any DaemonClock
    private let logger: Logger
    private let random: @Sendable () -> Double
    private let retry = Backoff(base: .seconds(60), maximum: .seconds(3600))
    private var consecutiveFailures = 0

    package init(
        source: MarketPriceSource, schedule: EndOfDaySchedule, clock: any DaemonClock, logger: Logger,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }, fetch: @escaping Fetch
    ) {
        self.source = source
        self.fetch = fetch
        self.schedule = schedule
        self.clock = clock
        self.logger = logger
        self.random = random
    }

    /// The real sources of `settings`.
    package static func make(
        _ source: MarketPriceSource, settings: IPOValueSettings, fetcher: HTTPFetcher, clock: any DaemonClock, logger: Logger
    ) -> IPOMarketPricePoller {
        let zone = TimeZone(identifier: settings.timeZone) ?? TimeZone(identifier: "Asia/Taipei") ?? .gmt
        let calendar = MarketCalendar(timeZone: zone)
        let base = settings.baseURL(for: source)
        let fetch: Fetch
        switch source {
        case .twse_close:
            let reader = TWSEDailyCloseSource(baseURL: base, timeout: settings.timeout, fetcher: fetcher)
            fetch = { () async throws(SourceError) in try await reader.fetch() }
        case .tpex_close:
            let reader = TPExDailyCloseSource(baseURL: base, timeout: settings.timeout, calendar: calendar, fetcher: fetcher)
            fetch = { () async throws(SourceError) in try await reader.fetch() }
        case .tpex_emerging:
            let reader = TPExEmergingSource(baseURL: base, timeout: settings.timeout, calendar: calendar, fetcher: fetcher)
            fetch = { () async throws(SourceError) in try await reader.fetch() }
        }
        return IPOMarketPricePoller(
            source: source, schedule: EndOfDaySchedule(timeZone: zone, hour: settings.pollHour), clock: clock, logger: logger,
            fetch: fetch)
    }

    /// Polls at once, then until cancelled.
    package func run(into inbox: EngineInbox) async {
        while !Task.isCancelled {
            let wait = await pollOnce(into: inbox)
            do { try await clock.sleep(for: wait, label: .poll(source.sourceName)) } catch { return }
        }
    }

    /// One poll; returns how long to wait before the next.
    @discardableResult
    package func pollOnce(into inbox: EngineInbox) async -> Duration {
        let name = source.sourceName
        let fetch = fetch
        do {
            let report = try await FetchMetrics.timed(name) { () async throws(SourceError) in try await fetch() }
            consecutiveFailures = 0
            logger.debug("IPO market prices polled", metadata: ["source": "\(name)", "prices": "\(report.prices.count)"])
            inbox.send(.ipoMarketPrices(report))
            inbox.send(.sourceSucceeded(source: name))
        } catch {
            if Task.isCancelled { return .zero }
            consecutiveFailures += 1
            logger.debug("IPO market price poll failed", metadata: ["source": "\(name)", "error": "\(error.message)"])
            inbox.send(.sourceFailed(source: name, message: error.message))
            inbox.send(.ipoMarketPrices(MarketPriceReport(source: source, prices: [:], failed: true)))
            let wait = retry.delay(afterFailures: consecutiveFailures, random: random(), minimum: error.retryAfter)
            return min(wait, untilNextSlot())
        }
        return untilNextSlot()
    }

    private func untilNextSlot() -> Duration {
        let now = clock.now()
        let seconds = max(1, schedule.next(after: now).timeIntervalSince(now))
        return .milliseconds(Int64((seconds * 1000).rounded(.up)))
    }
}
