import Foundation
import Logging
import MarketAlertCore

/// What a takeover reads: every stored alert state, as a restart would (`StateRestore`), except that a
/// database that cannot be read is an error, not "start without them": a new leader that adopted nothing
/// would notify again everything the old one had notified.
enum HATakeover {
    static func loadStates(_ store: any AlertStore, settings: Settings, now: Date, logger: Logger) async throws -> AlertEngine.Restored {
        var restored = AlertEngine.Restored()
        restored.premium = try await decode(store, kind: "premium", logger: logger)
        restored.sources = try await decode(store, kind: "source", logger: logger)
        restored.fx = try await decode(store, kind: "fx", logger: logger)
        restored.ipo = try await decode(store, kind: IPOAlertState.kind, logger: logger)
        // The day the group last sent its digest: unreadable is an error too (a guess could send it twice).
        if settings.digest != nil, let data = try await store.loadStates(kind: DigestRecord.kind)[DigestRecord.key] {
            restored.digestDay = try? JSONDecoder().decode(DigestRecord.self, from: data).day
        }
        // The group's history for context and the digest's period (a failure only costs context: the
        // standby's own observations stay).
        if settings.history != nil, let history = store as? any HistoryStore {
            do {
                restored.history = try await history.fold(
                    since: HistoryWarmup.since(settings: settings, now: now), into: HistoryWarmup(settings: settings, now: now)
                ) { warm, sample in warm.add(sample) }
            } catch {
                logger.warning("HA: cannot read the premium history to take over; context builds up from this instance's own samples: \(error)")
            }
        }
        return restored
    }

    private static func decode<State: Decodable>(_ store: any AlertStore, kind: String, logger: Logger) async throws -> [String: State] {
        let result = try await store.loadStates(kind: kind, as: State.self)
        for key in result.undecodable {
            logger.warning("state store: ignoring an undecodable stored state; it starts afresh", metadata: ["key": "\(key)"])
        }
        return result.states
    }
}
