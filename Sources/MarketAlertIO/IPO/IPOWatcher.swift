import Foundation
import Logging
import MarketAlertCore

/// Watches IPO public-subscription windows (TWSE 公開申購) and notifies their transitions.
///
/// Each source is polled every `poll_interval` (sooner, with backoff, after a failure); the last good list of
/// each queried year is kept, so a failed poll changes nothing. Between polls the watcher sleeps on the
/// injected clock until the earlier of the next poll and the next boundary (local midnight in the source's
/// zone where some offering's state changes), so `opens`/`last_day`/`closed`/`lottery_day` fire at the
/// boundary instant itself. Per-offering state survives restarts in the `StateStore` (see
/// `IPOPersistedState` for the delivery guarantee). `run()` never throws; it returns when cancelled.
package actor IPOWatcher {
    private struct SourceState {
        var source: TWSEPublicFormSource
        /// The last good list per requested `yy`.
        var lists: [Int: [IPOOffering]] = [:]
        var nextPoll: Date = .distantPast
        var consecutiveFailures = 0
        var lastIssues: [String] = []

        var calendar: MarketCalendar { source.calendar }

        /// The current offerings: the years in the order they were asked for, first occurrence of a key wins.
        var offerings: [IPOOffering] {
            var seen: Set<String> = []
            var result: [IPOOffering] = []
            for year in lists.keys.sorted(by: >) {
                for offering in lists[year] ?? [] where seen.insert(offering.key).inserted { result.append(offering) }
            }
            return result
        }
    }

    private let notify: Set<IPONotification>
    private let clock: any DaemonClock
    private let store: StateStore?
    private let sink: any AlertSink
    private let health: any SourceHealthReporter
    private let logger: Logger
    private let random: @Sendable () -> Double
    private let retry = Backoff(base: .seconds(60), maximum: .seconds(3600))
    private var sources: [SourceState]
    private var states: [String: IPOPersistedState] = [:]
    private var prepared = false

    /// - Parameters:
    ///   - store: where per-offering state is kept; nil keeps it in memory only (a restart then re-announces).
    ///   - random: jitter for the retry backoff after a failed poll (0..<1).
    package init(
        settings: IPOSettings, fetcher: HTTPFetcher, clock: any DaemonClock, store: StateStore?, sink: any AlertSink,
        health: any SourceHealthReporter, logger: Logger, random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.notify = settings.notify
        self.clock = clock
        self.store = store
        self.sink = sink
        self.health = health
        self.logger = logger
        self.random = random
        self.sources = settings.sources.map { source in
            let calendar = MarketCalendar(timeZoneIdentifier: source.timeZone)
                ?? MarketCalendar(timeZone: TimeZone(identifier: "Asia/Taipei") ?? .gmt)  // the config already rejects unknown zones
            return SourceState(source: TWSEPublicFormSource(
                settings: source, calendar: calendar, excludeNamePatterns: settings.excludeNamePatterns, fetcher: fetcher))
        }
    }

    /// Polls and notifies until the task is cancelled.
    package func run() async {
        await prepare()
        let start = clock.now()
        for index in sources.indices { sources[index].nextPoll = start }
        while !Task.isCancelled {
            let now = clock.now()
            for index in sources.indices where sources[index].nextPoll <= now {
                await poll(index)
                if Task.isCancelled { return }
            }
            await evaluate()
            do {
                try await clock.sleep(until: nextWake())
            } catch {
                return
            }
        }
    }

    /// One poll of every source, then one evaluation (notifications included), for `marketalertd once`.
    package func pollOnce() async {
        await prepare()
        for index in sources.indices { await poll(index) }
        await evaluate()
    }

    /// Every current offering with its state now, by subscription start (unknown dates last), then code.
    package func snapshot() -> [IPOOfferingStatus] {
        let now = clock.now()
        let rows = sources.flatMap { source in
            source.offerings.map { IPOOfferingStatus($0, state: $0.state(at: now, calendar: source.calendar)) }
        }
        return rows.sorted { lhs, rhs in
            switch (lhs.subscriptionStart, rhs.subscriptionStart) {
            case let (l?, r?) where l != r: l < r
            case (nil, _?): false
            case (_?, nil): true
            default: (lhs.source, lhs.code) < (rhs.source, rhs.code)
            }
        }
    }

    // MARK: Steps

    /// Loads the stored states once and re-delivers notifications a crash left pending.
    private func prepare() async {
        guard !prepared else { return }
        prepared = true
        guard let store else { return }
        do {
            let loaded = try store.loadStates(kind: IPOPersistedState.kind, as: IPOPersistedState.self)
            states = loaded.states
            if !loaded.undecodable.isEmpty {
                logger.warning("ignoring unreadable stored IPO states", metadata: ["keys": "\(loaded.undecodable.sorted())"])
            }
        } catch {
            logger.error("could not load stored IPO states; starting without them", metadata: ["error": "\(error)"])
        }
        for key in states.keys.sorted() {
            guard let pending = states[key]?.pending, !pending.isEmpty else { continue }
            logger.notice("re-delivering IPO notifications interrupted by a restart", metadata: ["key": "\(key)", "count": "\(pending.count)"])
            await publish(pending, key: key)
        }
    }

    private func poll(_ index: Int) async {
        let source = sources[index].source
        let years = TWSEPublicFormTable.queryYears(at: clock.now(), calendar: source.calendar)
        var fetched: [Int: TWSEPublicFormTable.Result] = [:]
        var firstError: SourceError?
        for year in years {
            do {
                fetched[year] = try await source.fetch(year: year)
            } catch {
                if Task.isCancelled { return }
                logger.warning("IPO list poll failed", metadata: ["source": "\(source.name)", "yy": "\(year)", "error": "\(error.message)"])
                if firstError == nil { firstError = error }
            }
        }
        if Task.isCancelled { return }
        // Years no longer asked for are dropped; a year that failed keeps its last good list.
        var lists = sources[index].lists.filter { years.contains($0.key) }
        for (year, result) in fetched { lists[year] = result.offerings }
        sources[index].lists = lists
        report(fetched, index: index)

        let now = clock.now()
        if let firstError {
            sources[index].consecutiveFailures += 1
            let wait = retry.delay(
                afterFailures: sources[index].consecutiveFailures, random: random(), minimum: firstError.retryAfter)
            sources[index].nextPoll = now.addingTimeInterval(min(wait, source.settings.pollInterval).seconds)
        } else {
            sources[index].consecutiveFailures = 0
            sources[index].nextPoll = now.addingTimeInterval(source.settings.pollInterval.seconds)
            prune(index, now: now)
        }
        await health.record(source: source.name, error: firstError)
    }

    /// Logs row problems when they change (not on every poll) and a one-line summary at debug level.
    private func report(_ fetched: [Int: TWSEPublicFormTable.Result], index: Int) {
        let name = sources[index].source.name
        let issues = fetched.keys.sorted().flatMap { year in fetched[year]?.issues.map { "yy=\(year) \($0)" } ?? [] }
        if issues != sources[index].lastIssues, !fetched.isEmpty {
            for issue in issues where !sources[index].lastIssues.contains(issue) {
                logger.warning("IPO list row problem", metadata: ["source": "\(name)", "issue": "\(issue)"])
            }
            sources[index].lastIssues = issues
        }
        for (year, result) in fetched.sorted(by: { $0.key < $1.key }) {
            logger.debug("IPO list polled", metadata: [
                "source": "\(name)", "yy": "\(year)", "offerings": "\(result.offerings.count)", "excluded": "\(result.excluded)",
            ])
        }
    }

    /// Runs every current offering through its state machine at `now` and publishes what is due.
    private func evaluate() async {
        let now = clock.now()
        for source in sources {
            let today = source.calendar.day(of: now)
            for offering in source.offerings {
                let key = offering.key
                let previous = states[key]
                var machine: SubscriptionStateMachine
                let notices: [SubscriptionStateMachine.Notice]
                if let previous {
                    machine = previous.machine
                    notices = machine.observe(offering: offering, today: today, notify: notify)
                } else {
                    (machine, notices) = SubscriptionStateMachine.start(offering: offering, today: today, notify: notify)
                }
                let keepUntil = IPOPersistedState.keepUntil(offering, calendar: source.calendar)
                if let previous, previous.machine == machine, previous.keepUntil == keepUntil, notices.isEmpty { continue }
                let events = notices.map { IPOEvents.event(id: EventID.make(), offering: offering, notice: $0, today: today, now: now) }
                let record = IPOPersistedState(machine: machine, pending: (previous?.pending ?? []) + events, keepUntil: keepUntil)
                states[key] = record
                save(record, key: key, now: now)
                if !events.isEmpty { await publish(events, key: key) }
            }
        }
    }

    /// Hands `events` to the sink, then clears them from the key's pending list.
    private func publish(_ events: [AlertEvent], key: String) async {
        for event in events {
            logger.info("IPO notification", metadata: ["key": "\(key)", "status": "\(event.status)", "id": "\(event.id)"])
            await sink.deliver(event)
        }
        let delivered = Set(events.map(\.id))
        guard var record = states[key] else { return }
        record.pending.removeAll { delivered.contains($0.id) }
        states[key] = record
        save(record, key: key, now: clock.now())
    }

    /// Forgets stored offerings of this source that left its list and whose dates are long past.
    private func prune(_ index: Int, now: Date) {
        let prefix = "ipo/\(sources[index].source.name)/"
        let present = Set(sources[index].offerings.map(\.key))
        for (key, record) in states where key.hasPrefix(prefix) && !present.contains(key) && record.pending.isEmpty && record.keepUntil < now {
            states[key] = nil
            do {
                try store?.deleteState(key: key)
            } catch {
                logger.error("could not delete stored IPO state", metadata: ["key": "\(key)", "error": "\(error)"])
            }
        }
    }

    private func save(_ record: IPOPersistedState, key: String, now: Date) {
        guard let store else { return }
        do {
            try store.saveState(record, key: key, kind: IPOPersistedState.kind, at: now)
        } catch {
            // Delivery still goes ahead: a possible repeat after a restart is better than a lost notification.
            logger.error("could not save IPO state", metadata: ["key": "\(key)", "error": "\(error)"])
        }
    }

    /// The earlier of the next poll and the next boundary of any current offering.
    private func nextWake() -> Date {
        let now = clock.now()
        var wake = sources.map(\.nextPoll).min() ?? now.addingTimeInterval(86_400)
        for source in sources {
            for offering in source.offerings {
                if let boundary = offering.nextBoundary(after: now, in: source.calendar), boundary < wake { wake = boundary }
            }
        }
        return wake
    }
}
