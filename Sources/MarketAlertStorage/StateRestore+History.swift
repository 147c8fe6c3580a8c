import Foundation
import Logging
import MarketAlertCore

extension StateRestore {
    /// Folds the stored history the engine warms its context rings and digest from, and reads the last digest
    /// day. A failure starts without them, loudly.
    package static func loadHistory(from store: any AlertStore, settings: Settings, now: Date, into loaded: inout Loaded, logger: Logger) async {
        do {
            loaded.states.digestDay = try await digestDay(from: store, settings: settings)
            guard let warm = try await historyWarmup(from: store, settings: settings, now: now) else { return }
            loaded.states.history = warm
            if warm.samples > 0 { logger.info("premium history: \(warm.samples) samples loaded for context and digest") }
        } catch {
            logger.error("state store: cannot load premium history; notifications carry no context until it builds up again: \(error)")
        }
    }

    /// The local day the digest was last sent for (nil without `digest:`, before the first, or unreadable
    /// as a record); a store that cannot be read throws.
    package static func digestDay(from store: any AlertStore, settings: Settings) async throws -> String? {
        guard settings.digest != nil, let data = try await store.loadStates(kind: DigestRecord.kind)[DigestRecord.key] else { return nil }
        return try? JSONDecoder().decode(DigestRecord.self, from: data).day
    }

    /// The context rings rebuilt from the stored samples under `settings` (a reload changed the resolution),
    /// for the engine to merge (`EngineEvent.historyRebuilt`); nil without `history:`.
    package static func rebuiltHistory(from store: any HistoryStore, settings: Settings, now: Date) async throws -> PremiumHistory? {
        guard settings.history != nil else { return nil }
        var empty = PremiumHistory()
        empty.configure(settings)
        return try await store.fold(since: HistoryWarmup.since(settings: settings, now: now), into: empty) { history, sample in
            history.warm(sample)
        }
    }

    /// The stored history folded into the context and digest warm-up (nil without `history:` or a history
    /// store).
    package static func historyWarmup(from store: any AlertStore, settings: Settings, now: Date) async throws -> HistoryWarmup? {
        guard settings.history != nil, let history = store as? any HistoryStore else { return nil }
        return try await history.fold(
            since: HistoryWarmup.since(settings: settings, now: now), into: HistoryWarmup(settings: settings, now: now)
        ) { warm, sample in warm.add(sample) }
    }
}
