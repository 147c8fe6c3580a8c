import Foundation
import Logging
import MarketAlertCore

/// Runs the producers (one per exchange, FX, one per IPO source), each pushing into the engine's inbox.
/// The documented owner of their tasks: a reload stops exactly the producers whose settings changed, waits
/// for them to end, and starts their replacements; `stopAll` cancels and awaits every one. Producers are
/// fetched once at once when started (at start and after a reload).
package actor ProducerSupervisor {
    private let factory: ProducerFactory
    private let inbox: EngineInbox
    private let clock: any DaemonClock
    private let logger: Logger
    private let executor: (any TaskExecutor)?
    private var running: [ProducerKey: (spec: ProducerSpec, task: Task<Void, Never>)] = [:]

    /// `executor`: the task executor the producers prefer (the daemon's data path thread), nil: the default.
    package init(factory: ProducerFactory, inbox: EngineInbox, clock: any DaemonClock, logger: Logger, executor: (any TaskExecutor)? = nil) {
        self.executor = executor
        self.factory = factory
        self.inbox = inbox
        self.clock = clock
        self.logger = logger
    }

    /// Stops the producers `settings` no longer wants as they were, runs `between` (the engine learns the
    /// new settings there, so no event of a stopped producer can follow them), then starts the new ones.
    package func apply(_ settings: Settings, between: @Sendable () async -> Void = {}) async {
        let wanted = ProducerSpec.all(settings)
        var stopping: [Task<Void, Never>] = []
        for (key, child) in running where wanted[key] != child.spec {
            child.task.cancel()
            stopping.append(child.task)
            running[key] = nil
        }
        for task in stopping { await task.value }
        await between()
        for (key, spec) in wanted where running[key] == nil {
            if let task = start(spec, settings: settings) { running[key] = (spec, task) }
        }
    }

    /// The labels the running producers sleep under between polls (tests wait until each is asleep).
    package var pollLabels: [ClockLabel] { running.keys.map(\.pollLabel) }

    /// Cancels every producer and waits until all have ended.
    package func stopAll() async {
        let tasks = running.values.map(\.task)
        running = [:]
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
    }

    /// Runs each producer `settings` calls for exactly once, concurrently, and returns when all are done
    /// (`marketalertd once`).
    package func runOnce(_ settings: Settings) async {
        let inbox = inbox
        let producers = ProducerSpec.all(settings).values.compactMap { spec in
            let once = makeOnce(spec, settings: settings)
            if once == nil { declareUnavailable(spec) }
            return once
        }
        await withTaskGroup(of: Void.self) { group in
            for producer in producers { group.addTask { await producer(inbox) } }
        }
    }

    private func start(_ spec: ProducerSpec, settings: Settings) -> Task<Void, Never>? {
        guard let run = makeRun(spec, settings: settings) else {
            declareUnavailable(spec)
            return nil
        }
        let inbox = inbox
        return Task(executorPreference: executor) { await run(inbox) }
    }

    /// A producer that cannot be made (FX with no usable provider) is declared down at once, so the rules
    /// that wait for it do not wait forever.
    private func declareUnavailable(_ spec: ProducerSpec) {
        switch spec {
        case .fx(let fx, let currencies):
            logger.warning("no usable FX provider: prices that need a rate cannot be converted")
            inbox.send(.fxRound(FXRateBook(), FXFailover(chain: [], currencies: currencies, maxAge: fx.maxAge)))
        case .exchange(let exchange, _):
            inbox.send(.sourceFailed(source: exchange.id.rawValue, message: "no adapter for this exchange"))
        case .ipo: break
        case .listings(let exchange, _):
            inbox.send(.sourceFailed(source: ListingSettings.sourceName(exchange.id), message: "this exchange's market list cannot be read"))
        case .transfers: break
        case .ipoPrices: break
        }
    }

    /// A producer's two ways of running: until cancelled (the daemon) and exactly once (`once`).
    private struct Producer: Sendable {
        var run: @Sendable (EngineInbox) async -> Void
        var once: @Sendable (EngineInbox) async -> Void
    }

    private func makeProducer(_ spec: ProducerSpec, settings: Settings) -> Producer? {
        switch spec {
        case .exchange(let exchange, let pairs):
            guard let source = factory.quoteSource(exchange) else { return nil }
            let poller = ExchangePoller(settings: exchange, source: source, pairs: pairs, clock: clock)
            let producer = ExchangeProducer(
                poller: poller, stream: factory.streamSource(exchange), pairs: pairs, logger: logger, marketList: factory.marketList(exchange))
            return Producer(run: { await producer.run(into: $0) }, once: { await poller.pollOnce(into: $0) })
        case .fx:
            guard let poller = factory.fxPoller(settings) else { return nil }
            return Producer(run: { await poller.run(into: $0) }, once: { await poller.pollOnce(into: $0) })
        case .ipo(let source, _):
            guard let poller = factory.ipoPoller(source, settings.ipo) else { return nil }
            return Producer(run: { await poller.run(into: $0) }, once: { await poller.pollOnce(into: $0) })
        case .listings(let exchange, let listings):
            guard let poller = factory.listingPoller(exchange, listings) else { return nil }
            // `once` prints premiums and IPO windows; a market list is a change over time, not polled there.
            return Producer(run: { await poller.run(into: $0) }, once: { _ in })
        case .transfers:
            guard let poller = factory.transferPoller(settings) else { return nil }
            return Producer(run: { await poller.run(into: $0) }, once: { await poller.pollOnce(into: $0) })
        case .ipoPrices(let value, let source):
            guard let poller = factory.ipoPricePoller(value, source) else { return nil }
            return Producer(run: { await poller.run(into: $0) }, once: { await poller.pollOnce(into: $0) })
        }
    }

    private func makeRun(_ spec: ProducerSpec, settings: Settings) -> (@Sendable (EngineInbox) async -> Void)? {
        makeProducer(spec, settings: settings)?.run
    }

    private func makeOnce(_ spec: ProducerSpec, settings: Settings) -> (@Sendable (EngineInbox) async -> Void)? {
        makeProducer(spec, settings: settings)?.once
    }
}
