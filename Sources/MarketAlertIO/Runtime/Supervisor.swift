import Foundation
import Logging
import MarketAlertCore

/// The daemon's hub. It owns the pollers (one child task per exchange), the FX and IPO components, the quote
/// book and every alert state machine; it turns poll results into premium and source alerts and hands them
/// to the sink. Pollers never throw: a failed poll is logged, counted for source health and retried with
/// backoff, so no source can take the daemon down.
package actor Supervisor: SourceHealthReporter {
    private struct Poller {
        var settings: ExchangeSettings
        var pairs: Set<MarketPair>
        var task: Task<Void, Never>
    }

    private struct Hosted<Component: Sendable, Key: Equatable> {
        var component: Component
        var key: Key
        /// The component's `run()`; nil for `once`, which only calls `pollOnce()`.
        var task: Task<Void, Never>?
    }

    private var settings: Settings
    private let components: SupervisorComponents
    private let clock: any DaemonClock
    private let store: StateStore?
    private let sink: any AlertSink
    private let lifecycle: any LifecycleObserver
    private let logger: Logger
    private let random: @Sendable () -> Double

    private var book = QuoteBook()
    private var evaluator = PremiumEvaluator()
    private var health: [String: SourceHealth] = [:]
    private var pollers: [ExchangeID: Poller] = [:]
    private var fx: Hosted<any FXComponent, FXComponentKey>?
    private var ipo: Hosted<any IPOComponent, IPOSettings>?
    private var lastStatus: String?
    private let startedAt: Date

    package init(
        settings: Settings, components: SupervisorComponents, clock: any DaemonClock, store: StateStore?,
        sink: any AlertSink, lifecycle: any LifecycleObserver = NoLifecycleObserver(), logger: Logger,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.settings = settings
        self.components = components
        self.clock = clock
        self.store = store
        self.sink = sink
        self.lifecycle = lifecycle
        self.logger = logger
        self.random = random
        self.startedAt = clock.now()
    }

    /// How often the housekeeping tick runs: `for` and repeat deadlines, stale quotes, silent sources,
    /// the status line and the watchdog.
    private var tickInterval: Duration {
        guard let watchdog = lifecycle.watchdogInterval, watchdog > .zero else { return .seconds(1) }
        return min(.seconds(1), watchdog)
    }

    /// When the watchdog was last pinged (pings go out every `watchdogInterval`, half of WATCHDOG_USEC).
    private var lastWatchdog: Date?

    // MARK: Running

    /// Runs until the task is cancelled, then stops every child task and returns.
    package func run() async {
        restoreState()
        await deliverPendingFromPreviousRun()
        reconcile(previous: nil)
        lifecycle.ready()
        logger.info("marketalertd running", metadata: ["exchanges": "\(pollers.keys.map(\.rawValue).sorted())"])
        while !Task.isCancelled {
            await tick()
            do { try await clock.sleep(for: tickInterval) } catch { break }
        }
        lifecycle.stopping()
        await stopAll()
        logger.info("marketalertd stopped")
    }

    /// One housekeeping round; also the watchdog's heartbeat (a stuck evaluator stops the pings).
    package func tick() async {
        await evaluate(onlyInvolving: nil)
        let now = clock.now()
        // Silence only means something for sources polled on a fixed beat: the exchanges. FX fallbacks and
        // TWSE are called on demand or hourly; they alert on consecutive failures only.
        for id in pollers.keys.sorted() {
            let name = id.rawValue
            guard var state = health[name] else { continue }
            let action = state.check(now: now, policy: settings.sourceAlerts)
            health[name] = state
            await publishHealth(name, state: state, action: action, now: now)
        }
        await updateStatus()
        if let interval = lifecycle.watchdogInterval,
           lastWatchdog.map({ now.timeIntervalSince($0) >= interval.seconds - tickInterval.seconds / 2 }) ?? true {
            lastWatchdog = now
            lifecycle.watchdog()
        }
    }

    /// Applies a new, already validated config: pollers added, removed or restarted; FX and IPO restarted
    /// when their settings changed; alert state of rules that no longer exist forgotten.
    package func apply(_ newSettings: Settings) async {
        let previous = settings
        settings = newSettings
        reconcile(previous: previous)
        for key in evaluator.retain(settings: settings.premium) {
            do { try store?.deleteState(key: key) } catch { logger.error("state store: cannot delete \(key): \(error)") }
        }
        logger.info("configuration applied", metadata: ["exchanges": "\(pollers.keys.map(\.rawValue).sorted())"])
        await evaluate(onlyInvolving: nil)
        await updateStatus()
    }

    /// For `marketalertd once`: polls every source once, evaluates, and returns without starting loops.
    package func runOnce() async {
        restoreState()
        let sources = settings.watchedPairsByExchange.compactMap { id, pairs in
            settings.exchanges[id].map { (components.makeQuoteSource($0), pairs) }
        }
        let fxComponent = makeFX()
        let ipoComponent = components.makeIPO(settings, self, sink)
        if let fxComponent { fx = Hosted(component: fxComponent, key: FXComponentKey(settings), task: nil) }
        if let ipoComponent { ipo = Hosted(component: ipoComponent, key: settings.ipo, task: nil) }
        await withTaskGroup(of: (ExchangeID, Result<[Quote], SourceError>).self) { group in
            for (source, pairs) in sources {
                group.addTask { (source.exchange, await source.poll(pairs)) }
            }
            if let fxComponent { await fxComponent.pollOnce() }
            if let ipoComponent { await ipoComponent.pollOnce() }
            for await (exchange, outcome) in group { await ingest(exchange, outcome, evaluate: false) }
        }
        await evaluate(onlyInvolving: nil)
    }

    // MARK: Poll results

    /// A poll of `exchange` finished: update the book and health, then re-evaluate the rules that use it.
    package func ingest(_ exchange: ExchangeID, _ outcome: Result<[Quote], SourceError>, evaluate shouldEvaluate: Bool = true) async {
        switch outcome {
        case .success(let quotes):
            book.replace(exchange, with: quotes)
            await record(source: exchange.rawValue, error: nil)
            if shouldEvaluate { await evaluate(onlyInvolving: [exchange]) }
        case .failure(let error):
            logger.error("poll failed: \(error)", metadata: ["source": "\(exchange.rawValue)"])
            await record(source: exchange.rawValue, error: error)
        }
    }

    package func record(source: String, error: SourceError?) async {
        let now = clock.now()
        var state = health[source] ?? SourceHealth(since: startedAt)
        let action = if let error {
            state.recordFailure(error.message, now: now, policy: settings.sourceAlerts)
        } else {
            state.recordSuccess(now: now)
        }
        health[source] = state
        await publishHealth(source, state: state, action: action, now: now)
    }

    private func publishHealth(_ name: String, state: SourceHealth, action: SourceHealth.Action, now: Date) async {
        guard action != .none else { return }
        let event = SourceEvents.event(
            id: EventID.make(), source: name, health: state, action: action, severity: settings.sourceAlerts.severity, now: now)
        await commitAndDeliver(
            states: [StateWrite(key: SourceEvents.key(name), kind: "source", state: state)], events: event.map { [$0] } ?? [], now: now)
    }

    // MARK: Premium evaluation

    private func evaluate(onlyInvolving exchanges: Set<ExchangeID>?) async {
        guard !settings.premium.rules.isEmpty else { return }
        let rates = await fx?.component.currentUSDRates() ?? [:]
        let now = clock.now()
        let converter = CurrencyConverter(
            reference: settings.premium.reference, stablecoinsAs: settings.premium.stablecoinsAs, usdRates: rates)
        let decisions = evaluator.evaluate(
            settings: settings.premium, book: book, converter: converter, now: now, onlyInvolving: exchanges)
        var events: [AlertEvent] = []
        var writes: [StateWrite] = []
        for decision in decisions {
            logger.debug("premium \(decision.key): \(decision.action), now \(decision.state.phase)", metadata: [
                "pct": "\(decision.observation.map { NumberText.percent($0.pct) } ?? "n/a")",
            ])
            if decision.stateChanged || decision.action != .none {
                writes.append(StateWrite(key: decision.key, kind: "premium", state: decision.state))
            }
            guard let observation = decision.observation,
                  let event = PremiumEvents.event(
                    id: EventID.make(), rule: decision.rule, reference: settings.premium.reference,
                    observation: observation, action: decision.action, now: now)
            else { continue }
            events.append(event)
        }
        guard !writes.isEmpty || !events.isEmpty else { return }
        await commitAndDeliver(states: writes, events: events, now: now)
    }

    /// States and their notifications are committed together before any sink sees them (the actor may be
    /// re-entered while a sink awaits, and a newer state must never be overwritten by an older one); each
    /// notification is cleared once every sink has it. A crash in between re-delivers it at the next start,
    /// with the same id: at-least-once, never lost, never decided twice.
    private func commitAndDeliver(states: [StateWrite], events: [AlertEvent], now: Date) async {
        if let store {
            do { try store.commit(states: states, pending: events, at: now) } catch {
                logger.error("state store: cannot save alert state (\(states.map(\.key).joined(separator: ", "))): \(error)")
            }
        }
        for event in events {
            await sink.deliver(event)
            guard let store else { continue }
            do { try store.clearPending(eventID: event.id) } catch {
                logger.error("state store: cannot clear delivered event \(event.id): \(error)")
            }
        }
    }

    /// Delivers what a previous run committed but may not have handed to every sink.
    private func deliverPendingFromPreviousRun() async {
        guard let store else { return }
        do {
            let pending = try store.pendingEvents()
            for id in pending.undecodable {
                logger.warning("state store: dropping an undecodable pending event \(id)")
                try? store.clearPending(eventID: id)
            }
            if !pending.events.isEmpty {
                logger.notice("delivering \(pending.events.count) notification(s) left pending by the previous run")
            }
            for event in pending.events {
                await sink.deliver(event)
                try store.clearPending(eventID: event.id)
            }
        } catch {
            logger.error("state store: cannot read pending events: \(error)")
        }
    }

    // MARK: Children

    private func reconcile(previous: Settings?) {
        let wanted = settings.watchedPairsByExchange
        for (id, poller) in pollers where wanted[id] == nil || settings.exchanges[id] != poller.settings || wanted[id] != poller.pairs {
            poller.task.cancel()
            pollers[id] = nil
            if wanted[id] == nil { book.remove(id) }
        }
        for (id, pairs) in wanted.sorted(by: { $0.key < $1.key }) where pollers[id] == nil {
            guard let exchange = settings.exchanges[id] else { continue }
            pollers[id] = Poller(settings: exchange, pairs: pairs, task: startPoller(exchange, pairs: pairs))
        }
        let fxKey = FXComponentKey(settings)
        if fx?.key != fxKey {
            fx?.task?.cancel()
            fx = nil
            if let component = makeFX() {
                fx = Hosted(component: component, key: fxKey, task: Task { await component.run() })
            }
        }
        if ipo?.key != settings.ipo {
            ipo?.task?.cancel()
            ipo = nil
            if let component = components.makeIPO(settings, self, sink) {
                ipo = Hosted(component: component, key: settings.ipo, task: Task { await component.run() })
            }
        }
    }

    private func makeFX() -> (any FXComponent)? {
        components.makeFX(settings, self, sink) { [weak self] in await self?.evaluate(onlyInvolving: nil) }
    }

    private func startPoller(_ exchange: ExchangeSettings, pairs: Set<MarketPair>) -> Task<Void, Never> {
        let source = components.makeQuoteSource(exchange)
        let clock = clock
        let random = random
        let backoff = Backoff(base: exchange.pollInterval, maximum: max(exchange.pollInterval, .seconds(120)))
        return Task { [weak self] in
            var failures = 0
            while !Task.isCancelled {
                let outcome = await source.poll(pairs)
                if Task.isCancelled { break }
                await self?.ingest(exchange.id, outcome)
                let wait: Duration
                switch outcome {
                case .success:
                    failures = 0
                    wait = exchange.pollInterval
                case .failure(let error):
                    failures += 1
                    wait = backoff.delay(afterFailures: failures, random: random(), minimum: error.retryAfter)
                }
                do { try await clock.sleep(for: wait) } catch { break }
            }
        }
    }

    private func stopAll() async {
        let tasks = pollers.values.map(\.task) + [fx?.task, ipo?.task].compactMap { $0 ?? nil }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
        pollers = [:]
        fx = nil
        ipo = nil
    }

    // MARK: State

    private func restoreState() {
        guard let store else { return }
        do {
            let premium = try store.loadStates(kind: "premium", as: LeveledAlertStateMachine.self)
            evaluator = PremiumEvaluator(states: premium.states)
            let sources = try store.loadStates(kind: "source", as: SourceHealth.self)
            for (key, state) in sources.states where key.hasPrefix("source/") {
                health[String(key.dropFirst("source/".count))] = state
            }
            for key in premium.undecodable + sources.undecodable {
                logger.warning("state store: ignoring undecodable state for \(key)")
            }
            _ = evaluator.retain(settings: settings.premium)
        } catch {
            logger.error("state store: cannot load alert state: \(error)")
        }
    }

    // MARK: Status

    /// `7 exchanges ok, 1 failing (bithumb); max premium BTC 0.07%; 2 IPO windows open`.
    package func statusLine() async -> String {
        let exchanges = pollers.keys.sorted()
        let failing = exchanges.filter { (health[$0.rawValue]?.consecutiveFailures ?? 0) > 0 || health[$0.rawValue]?.firing == true }
        var parts = ["\(exchanges.count - failing.count) exchanges ok"
            + (failing.isEmpty ? "" : ", \(failing.count) failing (\(failing.map(\.rawValue).joined(separator: ", ")))")]
        if let top = evaluator.latest.values.max(by: { $0.pct < $1.pct }) {
            parts.append("max premium \(top.asset) \(NumberText.percent(top.pct))%")
        } else if !settings.premium.rules.isEmpty {
            parts.append("no premium yet")
        }
        if let ipo { parts.append("\(await ipo.component.openWindowCount()) IPO windows open") }
        return parts.joined(separator: "; ")
    }

    private func updateStatus() async {
        let line = await statusLine()
        guard line != lastStatus else { return }
        lastStatus = line
        logger.debug("status: \(line)")
        lifecycle.status(line)
    }

    /// Latest premium per rule and asset, for `once` (rule, asset, observation or nil).
    package func premiumTable() -> [(rule: String, asset: String, observation: PremiumObservation?)] {
        settings.premium.rules.flatMap { rule in
            rule.assets.map { asset in (rule.name, asset, evaluator.latest[PremiumEvents.key(rule: rule.name, asset: asset)]) }
        }
    }

    package func ipoSnapshot() async -> [IPOOfferingStatus] { await ipo?.component.snapshot() ?? [] }

    package func sourceHealth() -> [String: SourceHealth] { health }
}

/// What the FX component depends on: its own settings and the currencies the rules need.
private struct FXComponentKey: Equatable {
    var fx: FXSettings
    var currencies: Set<String>

    init(_ settings: Settings) {
        fx = settings.fx
        currencies = settings.neededFXCurrencies
    }
}
