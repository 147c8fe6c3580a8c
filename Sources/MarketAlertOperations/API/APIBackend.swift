import Foundation
import Logging
import MarketAlertConfigReader
import MarketAlertCore
import MarketAlertDelivery
import MarketAlertEngineLoop
import MarketAlertExchanges
import MarketAlertKit
import MarketAlertStorage

/// What the HTTP API reads and changes: the engine (through its loop, one actor hop per request), the
/// loop's liveness, the silence store, metrics, and who may change what.
package struct APIBackend: Sendable {
    package var loop: EngineLoop
    package var inbox: EngineInbox
    package var liveness: EngineLiveness
    package var clock: any DaemonClock
    package var silences: (any SilenceStore)?
    package var metrics: DaemonMetrics?
    package var access: APIAccess
    package var startedAt: Date
    package var version: String
    package var logger: Logger
    package var makeID: @Sendable () -> String
    /// Premium history for `/api/v1/history` and the status page's sparklines (nil: none).
    package var history: (any HistoryStore)?
    /// `single`, or this instance's place in its HA group.
    package var ha = HARole.single

    package init(
        loop: EngineLoop, inbox: EngineInbox, liveness: EngineLiveness, clock: any DaemonClock, silences: (any SilenceStore)?,
        metrics: DaemonMetrics?, access: APIAccess, startedAt: Date, version: String = MarketAlertVersion.current, logger: Logger,
        makeID: @escaping @Sendable () -> String = { UUID().uuidString.lowercased() }
    ) {
        self.loop = loop
        self.inbox = inbox
        self.liveness = liveness
        self.clock = clock
        self.silences = silences
        self.metrics = metrics
        self.access = access
        self.startedAt = startedAt
        self.version = version
        self.logger = logger
        self.makeID = makeID
    }

    /// The engine's view at `now`, in one actor hop.
    package func status(now: Date) async -> EngineStatus {
        await loop.snapshot { $0.status(now: now) }
    }

    /// Re-reads the silences and hands them to the engine; the stored list is returned.
    @discardableResult
    package func pushSilences(now: Date) async throws -> [Silence] {
        guard let silences else { return [] }
        let list = try await silences.silences(now: now)
        inbox.send(.silences(SilenceSnapshot(silences: list)))
        return list
    }
}
