import Foundation
import GRDB
import MarketAlertCore

/// One alert state to write: any `Encodable` state machine under its key.
package struct StateWrite {
    package var key: String
    package var kind: String
    package var state: any Encodable

    package init(key: String, kind: String, state: any Encodable) {
        self.key = key
        self.kind = kind
        self.state = state
    }
}

extension StateStore {
    /// Writes new alert states and the notifications they caused in one transaction, before any sink sees
    /// them. Together with `clearPending` after delivery, a crash at any point neither repeats a decision
    /// (the state is saved) nor loses its notification (it is re-delivered at the next start, with its id).
    package func commit(states: [StateWrite], pending events: [AlertEvent], at now: Date) throws {
        let encoder = JSONEncoder()
        let eventEncoder = AlertEvent.makeEncoder()
        let rows = try states.map { (key: $0.key, kind: $0.kind, data: try encoder.encode($0.state)) }
        let pending = try events.map { (id: $0.id, data: try eventEncoder.encode($0)) }
        try writer.write { db in
            for row in rows {
                try db.execute(
                    sql: """
                        INSERT INTO alert_state (key, kind, state, updated_at) VALUES (?, ?, ?, ?)
                        ON CONFLICT(key) DO UPDATE SET kind = excluded.kind, state = excluded.state, updated_at = excluded.updated_at
                        """,
                    arguments: [row.key, row.kind, row.data, now.timeIntervalSince1970])
            }
            for event in pending {
                try db.execute(
                    sql: "INSERT OR IGNORE INTO pending_event (event_id, event, created_at) VALUES (?, ?, ?)",
                    arguments: [event.id, event.data, now.timeIntervalSince1970])
            }
        }
    }

    /// The notification reached every sink (the webhook outbox holds its own durable copy).
    package func clearPending(eventID: String) throws {
        try writer.write { db in try db.execute(sql: "DELETE FROM pending_event WHERE event_id = ?", arguments: [eventID]) }
    }

    /// Notifications a previous run decided but may not have delivered, oldest first. Rows that no longer
    /// decode are returned as ids so the caller can log and drop them.
    package func pendingEvents() throws -> (events: [AlertEvent], undecodable: [String]) {
        let rows = try writer.read { db in try Row.fetchAll(db, sql: "SELECT event_id, event FROM pending_event ORDER BY seq") }
        let decoder = AlertEvent.makeDecoder()
        var events: [AlertEvent] = []
        var undecodable: [String] = []
        for row in rows {
            let data: Data = row["event"]
            if let event = try? decoder.decode(AlertEvent.self, from: data) { events.append(event) } else { undecodable.append(row["event_id"]) }
        }
        return (events, undecodable)
    }
}
