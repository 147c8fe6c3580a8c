import Foundation
import Logging
import MarketAlertCore
import MarketAlertKit
import MarketAlertStorage

/// What a takeover reads: every stored alert state, as a restart would (`StateRestore`), except that a
/// database that cannot be read is an error, not "start without them": a new leader that adopted nothing
/// would notify again everything the old one had notified.
package enum HATakeover {
    package static func loadStates(_ store: any AlertStore, settings: Settings, now: Date, logger: Logger) async throws -> AlertEngine.Restored {
        var restored = try await StateRestore.alertStates(from: store, logger: logger)
        // The day the group last sent its digest: unreadable is an error too (a guess could send it twice).
        restored.digestDay = try await StateRestore.digestDay(from: store, settings: settings)
        // The group's history for context and the digest's period (a failure only costs context: the
        // standby's own observations stay).
        do {
            if let warm = try await StateRestore.historyWarmup(from: store, settings: settings, now: now) { restored.history = warm }
        } catch {
            logger.warning("HA: cannot read the premium history to take over; context builds up from this instance's own samples: \(error)")
        }
        return restored
    }
}
