import Foundation
import Logging
import MarketAlertCore

/// Loads the engine's alert states from the store at start. A state that no longer decodes is logged and
/// started afresh; a store that cannot be read starts everything afresh (loudly).
package enum StateRestore {
    package struct Loaded {
        package var states = AlertEngine.Restored()
        /// Notifications that version 1 kept inside IPO state rows, with those rows rewritten without them:
        /// published once at start, then they are the publisher's like any other.
        package var legacy = Publication()

        package init() {}
    }

    /// IPO rows as version 1 wrote them: the state plus notifications not yet delivered.
    private struct LegacyIPOState: Decodable {
        var pending: [AlertEvent]?
    }

    package static func load(from store: (any AlertStore)?, settings: Settings? = nil, now: Date = Date(), logger: Logger) async -> Loaded {
        var loaded = Loaded()
        guard let store else { return loaded }
        do {
            loaded.states = try await alertStates(from: store, logger: logger)
            for (key, data) in try await store.loadStates(kind: IPOAlertState.kind).sorted(by: { $0.key < $1.key }) {
                guard let legacy = try? JSONDecoder().decode(LegacyIPOState.self, from: data), let pending = legacy.pending,
                      let state = loaded.states.ipo[key]
                else { continue }
                loaded.legacy.states.append(StateRecord.encode(state, key: key, kind: IPOAlertState.kind))
                loaded.legacy.events += pending
            }
        } catch {
            logger.error("state store: cannot load alert states; starting without them: \(error)")
        }
        if let settings { await loadHistory(from: store, settings: settings, now: now, into: &loaded, logger: logger) }
        return loaded
    }

    /// The four kinds of alert state (premium, source, FX, IPO). A row that no longer decodes is logged and
    /// starts afresh; a store that cannot be read throws (the caller decides: a restart starts without them,
    /// an HA takeover fails).
    package static func alertStates(from store: any AlertStore, logger: Logger) async throws -> AlertEngine.Restored {
        var states = AlertEngine.Restored()
        states.premium = try await decode(store, kind: "premium", logger: logger)
        states.sources = try await decode(store, kind: "source", logger: logger)
        states.fx = try await decode(store, kind: "fx", logger: logger)
        states.ipo = try await decode(store, kind: IPOAlertState.kind, logger: logger)
        states.listings = try await decode(store, kind: ListingBook.kind, logger: logger)
        states.transfers = try await decode(store, kind: TransferAlertState.kind, logger: logger)
        return states
    }

    private static func decode<State: Decodable>(_ store: any AlertStore, kind: String, logger: Logger) async throws -> [String: State] {
        let result = try await store.loadStates(kind: kind, as: State.self)
        for key in result.undecodable {
            logger.warning("state store: ignoring an undecodable stored state; it starts afresh", metadata: ["key": "\(key)"])
        }
        return result.states
    }
}
