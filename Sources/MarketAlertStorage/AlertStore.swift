import Foundation
import MarketAlertCore
import MarketAlertKit

/// Where alert state and notifications in flight live: SQLite in `state_dir` (`SQLiteStore`), an in-memory
/// fake in tests, PostgreSQL under HA. Every call is async so no backend ever blocks the cooperative pool.
package protocol AlertStore: Sendable {
    /// Every stored state of `kind` (`premium`, `source`, `fx`, `ipo`) as its JSON, by key.
    func loadStates(kind: String) async throws -> [String: Data]
    /// Writes states, deletes keys and records the notifications they caused, in one transaction, before any
    /// sink sees them. With `clearPending` after delivery, a crash at any point neither repeats a decision nor
    /// loses its notification (it is re-delivered at the next start, with its id).
    func commit(_ publication: Publication, at now: Date) async throws
    /// The notifications reached every sink.
    func clearPending(eventIDs: [String]) async throws
    /// Notifications committed but not yet cleared, oldest first (as stored JSON).
    func pendingEvents() async throws -> [PendingEvent]
}

/// Everything the daemon keeps: `SQLiteStore`, or `PostgresStore` under HA.
package typealias StateStore = AlertStore & SilenceStore & WebhookQueueStore

/// A committed notification not yet confirmed delivered.
package struct PendingEvent: Sendable, Equatable {
    package var id: String
    package var data: Data

    package init(id: String, data: Data) {
        self.id = id
        self.data = data
    }
}

extension AlertStore {
    /// Decodes every state of `kind`; keys whose JSON no longer decodes are returned apart, for a warning.
    package func loadStates<State: Decodable>(kind: String, as type: State.Type) async throws -> (states: [String: State], undecodable: [String]) {
        let decoder = JSONDecoder()
        var states: [String: State] = [:]
        var undecodable: [String] = []
        for (key, data) in try await loadStates(kind: kind) {
            if let state = try? decoder.decode(State.self, from: data) { states[key] = state } else { undecodable.append(key) }
        }
        return (states, undecodable.sorted())
    }
}
