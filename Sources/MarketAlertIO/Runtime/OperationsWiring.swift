import Foundation
import Logging
import MarketAlertCore

/// Wires what operators use around the runtime: liveness and metrics on the engine loop, the publisher's
/// hooks (metrics, silence ends), the silences and firing records restored into the engine before any
/// producer runs, and the HTTP server (a ServiceGroup service; nothing is served without `http:`).
package enum OperationsWiring {
    /// A loop busy with one input longer than this is stuck (`/healthz` 503): the watchdog interval when
    /// systemd arms one, else 30 s.
    package static func stuckAfter(_ lifecycle: any LifecycleObserver) -> Duration {
        lifecycle.watchdogInterval ?? .seconds(30)
    }

    /// Attaches to `runtime` and returns the HTTP server service. Call before the runtime runs.
    package static func attach(
        to runtime: DataPathService, settings: Settings, store: (any StateStore)?, clock: any DaemonClock, lifecycle: HTTPStatusLifecycle,
        secrets: SecretResolver, logger: Logger, ha: HARole = .single
    ) async -> HTTPServerService {
        let metrics = DaemonMetrics(webhookQueue: store)
        metrics.bootstrapMetricsSystem()
        let liveness = EngineLiveness(stuckAfter: stuckAfter(lifecycle))
        await runtime.loop.attach(EngineLoopObservers([liveness, metrics]))
        await runtime.publisher.attach(DaemonPublicationHooks(metrics: metrics, silences: store, logger: logger))
        // HA: the takeover restores them (the schema may not exist before the migrations).
        if ha.instance == nil { await restoreSilences(into: runtime.inbox, store: store, now: clock.now(), logger: logger) }
        var backend = APIBackend(
            loop: runtime.loop, inbox: runtime.inbox, liveness: liveness, clock: clock, silences: store, metrics: metrics,
            access: APIAccess(), startedAt: clock.now(), logger: logger)
        backend.ha = ha
        backend.history = store as? any HistoryStore
        return HTTPServerService(
            settings: settings.http, backend: backend, secrets: secrets, logger: logger, onListening: { lifecycle.listening($0) })
    }

    /// The stored silences and firing records, as the engine's first event (queued before any producer's).
    package static func restoreSilences(into inbox: EngineInbox, store: (any StateStore)?, now: Date, logger: Logger) async {
        guard let store else { return }
        var silences: [Silence] = []
        var firing: [String: FiringRecord] = [:]
        do {
            silences = try await store.silences(now: now)
            let decoded = try await store.loadStates(kind: FiringRecord.kind, as: FiringRecord.self)
            for record in decoded.states.values { firing[record.event.key] = record }
            for key in decoded.undecodable { logger.warning("state store: ignoring an undecodable firing record", metadata: ["key": "\(key)"]) }
        } catch {
            logger.error("state store: cannot load silences; none apply until the next change: \(error)")
        }
        if !silences.isEmpty {
            let active = silences.filter { $0.isActive(at: now) }.count
            logger.info("\(silences.count) silence(s) restored, \(active) active")
        }
        inbox.send(.silences(SilenceSnapshot(silences: silences, restoredFiring: firing)))
    }
}
