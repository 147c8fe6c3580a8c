import Foundation
import Logging
import MarketAlertCore

extension StateRestore {
    /// Folds the stored history the engine warms its context rings and digest from, and reads the last digest
    /// day. A failure starts without them, loudly.
    static func loadHistory(from store: any AlertStore, settings: Settings, now: Date, into loaded: inout Loaded, logger: Logger) async {
        do {
            if settings.digest != nil, let data = try await store.loadStates(kind: DigestRecord.kind)[DigestRecord.key] {
                loaded.states.digestDay = try? JSONDecoder().decode(DigestRecord.self, from: data).day
            }
            guard settings.history != nil, let history = store as? any HistoryStore else { return }
            let warm = try await history.fold(
                since: HistoryWarmup.since(settings: settings, now: now), into: HistoryWarmup(settings: settings, now: now)
            ) { warm, sample in warm.add(sample) }
            loaded.states.history = warm
            if warm.samples > 0 { logger.info("premium history: \(warm.samples) samples loaded for context and digest") }
        } catch {
            logger.error("state store: cannot load premium history; notifications carry no context until it builds up again: \(error)")
        }
    }
}
