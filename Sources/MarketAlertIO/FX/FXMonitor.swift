import Foundation
import Logging
import MarketAlertCore

/// Polls the FX providers on the injected clock, keeps the failover's view of their rates, and runs the
/// FX move alerts.
///
/// Each poll walks the chain as `FXFailover.nextCall` says (the first provider with a fresh rate settles a
/// currency; OpenExchangeRates is not called while its last rate is current), reports every call to the
/// health reporter (source name = provider name), and backs a failing provider off (`Backoff`, at least
/// its Retry-After). When the selected rates change, `onRatesChanged` runs so premiums are re-evaluated.
/// Alert state is persisted under `fx/<BASE>-<QUOTE>` (kind `fx`) whenever its phase changes; events are
/// delivered before the state is saved, so a crash in between repeats an alert rather than losing it.
package actor FXMonitor {
    package static let stateKind = "fx"

    private let settings: FXSettings
    private let sources: [FXProviderKind: any RateSource]
    private let failover: FXFailover
    private let alerts: [FXAlertSettings]
    private let clock: any DaemonClock
    private let store: StateStore?
    private let sink: any AlertSink
    private let health: any SourceHealthReporter
    private let logger: Logger
    private let backoff: Backoff
    private let random: @Sendable () -> Double
    private let onRatesChanged: @Sendable () async -> Void

    private var book = FXRateBook()
    private var selected: [String: FXRate] = [:]
    private var machines: [String: LeveledAlertStateMachine] = [:]
    private var statesLoaded = false
    private var polling = false

    /// - Parameters:
    ///   - sources: the usable providers in failover order (`RateSources.makeAll`).
    ///   - neededCurrencies: currencies the premiums need as `USD/<currency>`; the quotes of `fx.alerts` are
    ///     added. USD itself is never fetched.
    ///   - random: jitter source for the backoff (0..<1); tests pass a constant.
    package init(
        settings: FXSettings, sources: [any RateSource], neededCurrencies: Set<String>, clock: any DaemonClock,
        store: StateStore?, sink: any AlertSink, health: any SourceHealthReporter, logger: Logger,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        onRatesChanged: @escaping @Sendable () async -> Void = {}
    ) {
        var byKind: [FXProviderKind: any RateSource] = [:]
        var chain: [FXProviderProfile] = []
        for source in sources where byKind[source.provider] == nil {
            byKind[source.provider] = source
            chain.append(.standard(source.provider))
        }
        let alerts = settings.alerts.filter(FXMoveAlerts.isSupported)
        for issue in FXMoveAlerts.issues(settings.alerts) { logger.warning("\(issue)") }
        self.settings = settings
        self.sources = byKind
        self.failover = FXFailover(
            chain: chain, currencies: neededCurrencies.union(alerts.map(\.quote)), maxAge: settings.maxAge)
        self.alerts = alerts
        self.clock = clock
        self.store = store
        self.sink = sink
        self.health = health
        self.logger = logger
        self.backoff = Backoff(base: settings.pollInterval, maximum: max(settings.pollInterval, .seconds(30 * 60)))
        self.random = random
        self.onRatesChanged = onRatesChanged
    }

    /// Fresh, chain-selected `USD/<currency>` rates at the clock's now, keyed by currency (for
    /// `CurrencyConverter`). A currency without a fresh rate is absent.
    package func currentUSDRates() -> [String: FXRate] { failover.select(book, now: clock.now()) }

    /// Polls every `fx.poll_interval` until the task is cancelled, then returns. Never throws: failures are
    /// logged, reported to the health reporter and retried with backoff.
    package func run() async {
        var next = clock.now()
        while !Task.isCancelled {
            await pollOnce()
            next = next.addingTimeInterval(settings.pollInterval.seconds)
            let now = clock.now()
            if next <= now { next = now.addingTimeInterval(settings.pollInterval.seconds) }  // a slow poll skips ticks
            do { try await clock.sleep(until: next) } catch { return }
        }
    }

    /// One poll: the provider calls the plan asks for, then the selection and the alerts (for `once`).
    /// Overlapping calls are skipped, not run twice.
    package func pollOnce() async {
        guard !polling else {
            logger.debug("FX poll already running; skipped")
            return
        }
        polling = true
        defer { polling = false }
        loadAlertStatesIfNeeded()

        var attempted: Set<FXProviderKind> = []
        while let call = failover.nextCall(book, attempted: attempted, now: clock.now()) {
            attempted.insert(call.kind)
            guard let source = sources[call.kind] else { continue }
            let started = clock.now()
            do {
                let rates = try await source.fetchUSDRates(for: call.currencies)
                if Task.isCancelled { return }
                book.recordSuccess(call.kind, rates: rates, at: started)
                await health.record(source: call.kind.rawValue, error: nil)
            } catch {
                if Task.isCancelled { return }
                let failures = book.state(call.kind).consecutiveFailures + 1
                let delay = backoff.delay(afterFailures: failures, random: random(), minimum: error.retryAfter)
                book.recordFailure(call.kind, at: clock.now(), delay: delay)
                logger.warning(
                    "FX provider failed: \(error)",
                    metadata: ["provider": "\(call.kind.rawValue)", "failures": "\(failures)", "retry_in_s": "\(Int(delay.seconds))"])
                await health.record(source: call.kind.rawValue, error: error)
            }
        }

        let now = clock.now()
        let selection = failover.select(book, now: now)
        if selection != selected {
            logSelectionChanges(from: selected, to: selection)
            selected = selection
            await onRatesChanged()
        }
        await evaluateAlerts(selection, now: now)
    }

    // MARK: Alerts

    private func evaluateAlerts(_ rates: [String: FXRate], now: Date) async {
        for alert in alerts {
            let key = FXMoveAlerts.key(alert)
            var machine = machines[key] ?? LeveledAlertStateMachine()
            let before = machine.phase
            let rate = rates[alert.quote]
            let action = machine.observe(FXMoveAlerts.observedValue(rate), now: now, policy: FXMoveAlerts.policy(alert))
            machines[key] = machine
            let event = FXMoveAlerts.event(id: EventID.make(), alert: alert, rate: rate, action: action, now: now)
            // State and notification are committed together before delivery, and the notification cleared
            // after it: a crash in between re-delivers it at the next start (see StateStore.commit).
            if machine.phase != before || event != nil { commit(machine, key: key, event: event, now: now) }
            if let event {
                logger.notice("\(event.key) \(event.status): \(event.summary)")
                await sink.deliver(event)
                do { try store?.clearPending(eventID: event.id) } catch {
                    logger.error("could not clear delivered FX event: \(error)", metadata: ["event_id": "\(event.id)"])
                }
            }
        }
    }

    private func loadAlertStatesIfNeeded() {
        guard !statesLoaded else { return }
        statesLoaded = true
        guard let store, !alerts.isEmpty else { return }
        do {
            let loaded = try store.loadStates(kind: Self.stateKind, as: LeveledAlertStateMachine.self)
            for alert in alerts {
                let key = FXMoveAlerts.key(alert)
                if let machine = loaded.states[key] { machines[key] = machine }
            }
            for key in loaded.undecodable {
                logger.warning("stored FX alert state could not be decoded; starting it afresh", metadata: ["key": "\(key)"])
            }
        } catch {
            logger.error("could not load FX alert states: \(error)")
        }
    }

    private func commit(_ machine: LeveledAlertStateMachine, key: String, event: AlertEvent?, now: Date) {
        guard let store else { return }
        do {
            try store.commit(
                states: [StateWrite(key: key, kind: Self.stateKind, state: machine)], pending: event.map { [$0] } ?? [], at: now)
        } catch {
            logger.error("could not save FX alert state: \(error)", metadata: ["key": "\(key)"])
        }
    }

    // MARK: Logging

    private func logSelectionChanges(from old: [String: FXRate], to new: [String: FXRate]) {
        for currency in Set(old.keys).union(new.keys).sorted() {
            let before = old[currency]?.provider
            let after = new[currency]
            guard before != after?.provider else { continue }
            if let after {
                logger.info(
                    "USD/\(currency) now from \(after.provider): \(after.rate) quoted \(Timestamp.rfc3339(after.at))",
                    metadata: ["previous_provider": "\(before ?? "none")"])
            } else {
                logger.warning(
                    "USD/\(currency): no provider has a fresh rate; prices in \(currency) cannot be converted",
                    metadata: ["previous_provider": "\(before ?? "none")"])
            }
        }
    }
}
