import Foundation
import MarketAlertCore
import MarketAlertKit
import PostgresNIO

/// Alert state and pending notifications, as `SQLiteStore+Alerts`; every write is fenced by the lease.
extension PostgresStore: AlertStore {
    package func loadStates(kind: String) async throws -> [String: Data] {
        try await read { [self] connection in
            var result: [String: Data] = [:]
            let rows = try await connection.query("SELECT key, state FROM alert_state WHERE kind = \(kind)", logger: logger)
            for try await (key, state) in rows.decode((String, Data).self) { result[key] = state }
            return result
        }
    }

    package func commit(_ publication: Publication, at now: Date) async throws {
        guard !publication.isEmpty else { return }
        let pending = try publication.events.map { (id: $0.id, data: try $0.jsonData()) }
        let at = now.timeIntervalSince1970
        try await fencedTransaction { [self] connection in
            for record in publication.states {
                try await connection.query(
                    """
                    INSERT INTO alert_state (key, kind, state, updated_at) VALUES (\(record.key), \(record.kind), \(record.data), \(at))
                    ON CONFLICT (key) DO UPDATE SET kind = excluded.kind, state = excluded.state, updated_at = excluded.updated_at
                    """, logger: logger)
            }
            for key in publication.deletedKeys {
                try await connection.query("DELETE FROM alert_state WHERE key = \(key)", logger: logger)
            }
            for event in pending {
                try await connection.query(
                    """
                    INSERT INTO pending_event (event_id, event, created_at) VALUES (\(event.id), \(event.data), \(at))
                    ON CONFLICT (event_id) DO NOTHING
                    """, logger: logger)
            }
            // Premium history samples riding in `publication`, in this same fenced transaction.
            try await Self.writeHistory(publication.history, pruneBefore: publication.pruneHistoryBefore, connection, logger: logger)
        }
    }

    package func clearPending(eventIDs: [String]) async throws {
        guard !eventIDs.isEmpty else { return }
        try await fencedTransaction { [self] connection in
            _ = try await connection.query("DELETE FROM pending_event WHERE event_id = ANY(\(eventIDs))", logger: logger)
        }
    }

    package func pendingEvents() async throws -> [PendingEvent] {
        try await read { [self] connection in
            var result: [PendingEvent] = []
            let rows = try await connection.query("SELECT event_id, event FROM pending_event ORDER BY seq", logger: logger)
            for try await (id, data) in rows.decode((String, Data).self) { result.append(PendingEvent(id: id, data: data)) }
            return result
        }
    }
}
