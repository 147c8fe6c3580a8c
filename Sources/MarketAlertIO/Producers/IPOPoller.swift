import Foundation
import Logging
import MarketAlertCore

/// Polls one IPO source (TWSE 公開申購) every `poll_interval` (sooner, with backoff, after a failure) and
/// pushes its current offerings into the engine's inbox. The last good list of each queried year is kept,
/// so a failed year changes nothing. Boundaries (opens, last day, …) are the engine's: it wakes at local
/// midnight by itself. Row problems are logged when they change, not on every poll.
package actor IPOPoller {
    private let source: TWSEPublicFormSource
    private let clock: any DaemonClock
    private let label: ClockLabel
    private let logger: Logger
    private let random: @Sendable () -> Double
    private let retry = Backoff(base: .seconds(60), maximum: .seconds(3600))
    /// The last good list per requested `yy`.
    private var lists: [Int: [IPOOffering]] = [:]
    private var consecutiveFailures = 0
    private var lastIssues: [String] = []

    package init(
        settings: IPOSourceSettings, excludeNamePatterns: [String], fetcher: HTTPFetcher, clock: any DaemonClock, logger: Logger,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        let calendar = MarketCalendar(timeZoneIdentifier: settings.timeZone)
            ?? MarketCalendar(timeZone: TimeZone(identifier: "Asia/Taipei") ?? .gmt)  // the config already rejects unknown zones
        self.source = TWSEPublicFormSource(settings: settings, calendar: calendar, excludeNamePatterns: excludeNamePatterns, fetcher: fetcher)
        self.clock = clock
        self.label = ProducerKey.ipo(settings.name).pollLabel
        self.logger = logger
        self.random = random
    }

    package nonisolated var name: String { source.name }

    /// Polls at once, then until cancelled.
    package func run(into inbox: EngineInbox) async {
        while !Task.isCancelled {
            let wait = await pollOnce(into: inbox)
            do { try await clock.sleep(for: wait, label: label) } catch { return }
        }
    }

    /// One poll of every year the calendar asks for; returns how long to wait before the next.
    @discardableResult
    package func pollOnce(into inbox: EngineInbox) async -> Duration {
        let years = TWSEPublicFormTable.queryYears(at: clock.now(), calendar: source.calendar)
        var fetched: [Int: TWSEPublicFormTable.Result] = [:]
        var firstError: SourceError?
        for year in years {
            do {
                fetched[year] = try await FetchMetrics.timed(source.name) { () async throws(SourceError) in try await source.fetch(year: year) }
            } catch {
                if Task.isCancelled { return .zero }
                logger.debug("IPO list poll failed", metadata: ["source": "\(source.name)", "yy": "\(year)", "error": "\(error.message)"])
                if firstError == nil { firstError = error }
            }
        }
        if Task.isCancelled { return .zero }
        // Years no longer asked for are dropped; a year that failed keeps its last good list.
        lists = lists.filter { years.contains($0.key) }
        for (year, result) in fetched { lists[year] = result.offerings }
        report(fetched)
        if !fetched.isEmpty { inbox.send(.ipoOfferings(source: source.name, offerings)) }
        if let firstError {
            consecutiveFailures += 1
            inbox.send(.sourceFailed(source: source.name, message: firstError.message))
            let wait = retry.delay(afterFailures: consecutiveFailures, random: random(), minimum: firstError.retryAfter)
            return min(wait, source.settings.pollInterval)
        }
        consecutiveFailures = 0
        inbox.send(.sourceSucceeded(source: source.name))
        return source.settings.pollInterval
    }

    /// The current offerings: the newest year first, the first occurrence of a key wins.
    private var offerings: [IPOOffering] {
        var seen: Set<String> = []
        var result: [IPOOffering] = []
        for year in lists.keys.sorted(by: >) {
            for offering in lists[year] ?? [] where seen.insert(offering.key).inserted { result.append(offering) }
        }
        return result
    }

    private func report(_ fetched: [Int: TWSEPublicFormTable.Result]) {
        let issues = fetched.keys.sorted().flatMap { year in fetched[year]?.issues.map { "yy=\(year) \($0)" } ?? [] }
        if issues != lastIssues, !fetched.isEmpty {
            for issue in issues where !lastIssues.contains(issue) {
                logger.warning("IPO list row problem", metadata: ["source": "\(source.name)", "issue": "\(issue)"])
            }
            lastIssues = issues
        }
        for (year, result) in fetched.sorted(by: { $0.key < $1.key }) {
            logger.debug("IPO list polled", metadata: [
                "source": "\(source.name)", "yy": "\(year)", "offerings": "\(result.offerings.count)", "excluded": "\(result.excluded)",
            ])
        }
    }
}
