import Foundation
import Logging
import MarketAlertCore

/// What a takeover reads: every stored alert state, as a restart would (`StateRestore`), except that a
/// database that cannot be read is an error, not "start without them": a new leader that adopted nothing
/// would notify again everything the old one had notified.
enum HATakeover {
    static func loadStates(_ store: any AlertStore, logger: Logger) async throws -> AlertEngine.Restored {
        var restored = AlertEngine.Restored()
        restored.premium = try await decode(store, kind: "premium", logger: logger)
        restored.sources = try await decode(store, kind: "source", logger: logger)
        restored.fx = try await decode(store, kind: "fx", logger: logger)
        restored.ipo = try await decode(store, kind: IPOAlertState.kind, logger: logger)
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
