import Foundation
import GRDB
import MarketAlertCore
import MarketAlertKit

extension SQLiteStore: AlertStore {
    package func loadStates(kind: String) async throws -> [String: Data] {
        try await writer.read { db in
            var result: [String: Data] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT key, state FROM alert_state WHERE kind = ?", arguments: [kind]) {
                result[row["key"]] = row["state"]
            }
            return result
        }
    }

    package func commit(_ publication: Publication, at now: Date) async throws {
        guard !publication.isEmpty else { return }
        let pending = try publication.events.map { (id: $0.id, data: try $0.jsonData()) }
        let states = publication.states
        let deleted = publication.deletedKeys
        let at = now.timeIntervalSince1970
        let history = publication.history
        let pruneBefore = publication.pruneHistoryBefore
        try await write { db in
            try Self.writeHistory(history, pruneBefore: pruneBefore, db)
            // Statements compiled once per connection (`cachedStatement`): a commit sits between a transition
            // and its notification, and compiling the upsert each time was a good part of it.
            for record in states {
                try db.cachedStatement(
                    sql: """
                        INSERT INTO alert_state (key, kind, state, updated_at) VALUES (?, ?, ?, ?)
                        ON CONFLICT(key) DO UPDATE SET kind = excluded.kind, state = excluded.state, updated_at = excluded.updated_at
                        """
                ).execute(arguments: [record.key, record.kind, record.data, at])
            }
            for key in deleted {
                try db.cachedStatement(sql: "DELETE FROM alert_state WHERE key = ?").execute(arguments: [key])
            }
            for event in pending {
                try db.cachedStatement(sql: "INSERT OR IGNORE INTO pending_event (event_id, event, created_at) VALUES (?, ?, ?)")
                    .execute(arguments: [event.id, event.data, at])
            }
        }
    }

    package func clearPending(eventIDs: [String]) async throws {
        guard !eventIDs.isEmpty else { return }
        try await write { db in
            for id in eventIDs { try db.cachedStatement(sql: "DELETE FROM pending_event WHERE event_id = ?").execute(arguments: [id]) }
        }
    }

    package func pendingEvents() async throws -> [PendingEvent] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: "SELECT event_id, event FROM pending_event ORDER BY seq").map {
                PendingEvent(id: $0["event_id"], data: $0["event"])
            }
        }
    }
}
