import Foundation
import Logging
import MarketAlertCore
import ServiceLifecycle

/// The running daemon's data path, one direction: producers → `EngineInbox` → `EngineLoop` (the pure
/// `AlertEngine`) → `AlertPublisher` → sinks and the webhook outbox. A ServiceGroup service: `run()` restores
/// state, re-delivers what a crashed run left pending, starts the producers and the loop, and on graceful
/// shutdown stops the producers, lets the loop publish what is queued, and returns.
package final class DataPathService: Service, Sendable {
    package let inbox: EngineInbox
    package let loop: EngineLoop
    package let publisher: AlertPublisher
    package let producers: ProducerSupervisor
    private let initial: Settings
    private let clock: any DaemonClock
    /// Where the engine loop and the producers run (`DataPathExecutor` in the daemon); nil: Swift's default.
    private let executor: (any TaskExecutor)?
    private let lifecycle: any LifecycleObserver
    private let logger: Logger
    /// The queued sinks' reports, followed by the publisher while the runtime runs (nil: no queued sink).
    private let writeReports: SinkWriteReports?
    /// Where a reload that changes `history.resolution` rebuilds the context rings from (nil: no store).
    private let history: (any HistoryStore)?
    /// v3 `assets: all` / `min_volume_24h`: the market lists behind the rules' assets (`AssetUniverseRefresher`);
    /// idle for a configuration without such a rule.
    package let universe: AssetUniverseRefresher

    /// Restores the engine's states from `store` and builds the parts. `startupEvents` (a damaged state
    /// store's alert) are published first. `executor`: the task executor the engine loop and the producers
    /// prefer (the daemon's data path thread); tests on virtual time leave it nil. `leadership`: an HA member's
    /// channel to its lease keeper (the publisher is a standby until the takeover and reports failed commits there).
    package static func make(
        settings: Settings, store: (any AlertStore)?, sinks: [any AlertSink], factory: ProducerFactory, clock: any DaemonClock,
        lifecycle: any LifecycleObserver = NoLifecycleObserver(), logger: Logger,
        makeID: @escaping @Sendable () -> String = EventID.make, startupEvents: [AlertEvent] = [],
        leadership: LeadershipEvents? = nil, executor: (any TaskExecutor)? = nil,
        writeReports: SinkWriteReports? = nil
    ) async -> DataPathService {
        // HA: nothing to restore before the takeover, which adopts the stored states (after the migrations).
        let restored = leadership == nil
            ? await StateRestore.load(from: store, settings: settings, now: clock.now(), logger: logger) : StateRestore.Loaded()
        let engine = AlertEngine(settings: settings, restored: restored.states, now: clock.now(), makeID: makeID)
        let publisher = AlertPublisher(store: store, sinks: sinks, clock: clock, logger: logger)
        await publisher.configureRouting(settings.routing)
        // What the routes held before (HA: at the takeover), before anything is published.
        if leadership == nil { await publisher.restoreRouting() }
        // HA: a standby until the lease keeper's takeover (`EngineInbox.takeover`).
        if let leadership { await publisher.enableHA(reportingTo: leadership) }
        await publisher.publish(restored.legacy)
        await publisher.publish(Publication(events: startupEvents))
        return DataPathService(
            settings: settings, engine: engine, publisher: publisher, factory: factory, clock: clock, lifecycle: lifecycle, logger: logger,
            executor: executor, writeReports: writeReports, history: store as? any HistoryStore)
    }

    private init(
        settings: Settings, engine: AlertEngine, publisher: AlertPublisher, factory: ProducerFactory, clock: any DaemonClock,
        lifecycle: any LifecycleObserver, logger: Logger, executor: (any TaskExecutor)?, writeReports: SinkWriteReports?,
        history: (any HistoryStore)?
    ) {
        self.writeReports = writeReports
        self.history = history
        self.clock = clock
        let inbox = EngineInbox()
        self.inbox = inbox
        self.initial = settings
        self.publisher = publisher
        self.loop = EngineLoop(
            engine: engine, inbox: inbox, publisher: publisher, clock: clock, lifecycle: lifecycle, logger: logger, timerExecutor: executor)
        self.producers = ProducerSupervisor(factory: factory, inbox: inbox, clock: clock, logger: logger, executor: executor)
        self.executor = executor
        self.lifecycle = lifecycle
        self.logger = logger
        let loop = loop
        let producers = producers
        universe = AssetUniverseRefresher(
            settings: settings, sources: factory.universeSource, clock: clock, logger: logger,
            converter: { await loop.snapshot { $0.volumeConverter } },
            apply: { resolved in
                await Self.apply(resolved, loop: loop, producers: producers, inbox: inbox, history: history, clock: clock, logger: logger)
            })
    }

    package func run() async throws {
        await publisher.redeliverPending()
        let loop = loop
        let producers = producers
        let inbox = inbox
        if initial.needsAssetUniverse {
            let resolved = await universe.resolved(initial)
            await producers.apply(resolved)
            await universe.start(applied: resolved)
        } else {
            await producers.apply(initial)
        }
        lifecycle.ready()
        let publisher = publisher
        let reports = writeReports
        await withDiscardingTaskGroup { outer in
            // The publisher follows the queued sinks' reports (stdout written late) off the data path.
            if let reports { outer.addTask { await publisher.follow(reports.stream) } }
            await withTaskGroup(of: Void.self) { group in
                group.addTask(executorPreference: executor) { await loop.run() }
                logger.info("marketalertd running", metadata: ["exchanges": "\(initial.watchedPairsByExchange.keys.map(\.rawValue).sorted())"])
                // Until graceful shutdown (or cancellation): then stop the market-list refresh (no apply may
                // restart a producer now) and the producers, so the loop can publish everything they
                // delivered, and finish the inbox.
                await withDiscardingTaskGroup { refresh in
                    let universe = universe
                    refresh.addTask { await universe.run() }
                    try? await gracefulShutdown()
                    lifecycle.stopping()
                    refresh.cancelAll()
                }
                await producers.stopAll()
                inbox.finish()
                await group.waitForAll()
            }
            // What a blocked stdout still holds stays pending in the store: the next start delivers it.
            outer.cancelAll()
        }
        logger.info("marketalertd stopped")
    }

    /// Applies a validated reload: changed producers stop, the engine learns the settings, new ones start.
    /// With `assets: all` or `min_volume_24h` (now or before) the rules' assets are resolved from the market
    /// lists first (`AssetUniverseRefresher`).
    package func apply(_ settings: Settings) async {
        let refreshing = await universe.isRunning
        if settings.needsAssetUniverse || refreshing {
            await universe.reload(settings)
            if settings.needsAssetUniverse { await universe.start(applied: settings) }
            return
        }
        await Self.apply(settings, loop: loop, producers: producers, inbox: inbox, history: history, clock: clock, logger: logger)
    }

    private static func apply(
        _ settings: Settings, loop: EngineLoop, producers: ProducerSupervisor, inbox: EngineInbox, history: (any HistoryStore)?,
        clock: any DaemonClock, logger: Logger
    ) async {
        let resolution = await loop.snapshot { $0.settings.history?.resolution }
        await producers.apply(settings) { inbox.send(.settings(settings)) }
        // A new resolution restarts the context rings in the engine: the stored samples fill them again.
        guard let store = history, let wanted = settings.history?.resolution, wanted != resolution else { return }
        do {
            if let rebuilt = try await StateRestore.rebuiltHistory(from: store, settings: settings, now: clock.now()) {
                inbox.send(.historyRebuilt(rebuilt))
            }
        } catch {
            logger.error("state store: cannot read premium history after the reload; context builds up again from new samples: \(error)")
        }
    }

    /// `marketalertd once`: every producer once, the engine drains, then returns (call `loop.snapshot`).
    package func runOnce(_ settings: Settings) async {
        let resolved = settings.needsAssetUniverse ? await universe.readOnce(settings) : settings
        let loop = loop
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await loop.run() }
            if resolved != settings { inbox.send(.settings(resolved)) }
            let settings = resolved
            await producers.runOnce(settings)
            inbox.finish()
            await group.waitForAll()
        }
    }
}
