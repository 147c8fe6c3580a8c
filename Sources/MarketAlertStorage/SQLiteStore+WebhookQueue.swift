import Foundation
import GRDB
import MarketAlertKit

extension WebhookOutboxRow {
    package init(row: Row) {
        seq = row["seq"]
        webhook = row["webhook"]
        eventID = row["event_id"]
        body = row["body"]
        createdAt = Date(timeIntervalSince1970: row["created_at"])
        attempts = row["attempts"]
        nextAttemptAt = Date(timeIntervalSince1970: row["next_attempt_at"])
        lastError = row["last_error"]
        expiresAt = (row["expires_at"] as Double?).map(Date.init(timeIntervalSince1970:))
    }
}


/// The webhook outbox: a durable FIFO per webhook. Every statement is one short transaction; a committed
/// insert survives a crash of the process (WAL), so nothing queued is lost.
extension SQLiteStore: WebhookQueueStore {
    /// Queues `entries` in one transaction, due at once (`next_attempt_at = now`).
    package func enqueueWebhookNotifications(_ entries: [WebhookOutboxEntry], at now: Date) async throws {
        guard !entries.isEmpty else { return }
        try await write { db in
            // Compiled once per connection: every notification to a webhook passes here.
            for entry in entries {
                try db.cachedStatement(
                    sql: """
                        INSERT INTO webhook_outbox (webhook, event_id, body, created_at, attempts, next_attempt_at, expires_at)
                        VALUES (?, ?, ?, ?, 0, ?, ?)
                        """
                ).execute(
                    arguments: [
                        entry.webhook, entry.eventID, entry.body, now.timeIntervalSince1970, now.timeIntervalSince1970,
                        entry.expiresAt.timeIntervalSince1970,
                    ])
            }
        }
    }

    /// The oldest queued notification of `webhook` (the only one that may be sent next).
    package func webhookOutboxHead(webhook: String) async throws -> WebhookOutboxRow? {
        try await writer.read { db in
            try Row.fetchOne(
                db.cachedStatement(sql: "SELECT * FROM webhook_outbox WHERE webhook = ? ORDER BY seq LIMIT 1"), arguments: [webhook]
            ).map(WebhookOutboxRow.init(row:))
        }
    }

    /// Every queued notification of `webhook`, oldest first.
    package func webhookOutboxRows(webhook: String) async throws -> [WebhookOutboxRow] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM webhook_outbox WHERE webhook = ? ORDER BY seq", arguments: [webhook])
                .map(WebhookOutboxRow.init(row:))
        }
    }

    package func webhookOutboxCount(webhook: String) async throws -> Int {
        try await writer.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM webhook_outbox WHERE webhook = ?", arguments: [webhook]) ?? 0
        }
    }

    /// Records a failed attempt: the attempt count, when to try next and why it failed.
    package func recordWebhookFailure(seq: Int64, attempts: Int, nextAttemptAt: Date, error: String) async throws {
        try await write { db in
            try db.execute(
                sql: "UPDATE webhook_outbox SET attempts = ?, next_attempt_at = ?, last_error = ? WHERE seq = ?",
                arguments: [attempts, nextAttemptAt.timeIntervalSince1970, error, seq])
        }
    }

    /// Removes a delivered or dropped notification.
    package func deleteWebhookNotification(seq: Int64) async throws {
        try await write { db in try db.cachedStatement(sql: "DELETE FROM webhook_outbox WHERE seq = ?").execute(arguments: [seq]) }
    }

    /// Deletes the expired notifications of webhooks that are no longer configured (configured webhooks drop
    /// their own, by their current max_age) and returns how many went, per webhook. Rows from before v2 have
    /// no `expires_at` and are treated as expiring 24 hours (the default max_age) after they were queued.
    package func purgeExpiredWebhookNotifications(exceptFor configured: Set<String>, now: Date) async throws -> [String: Int] {
        try await write { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT seq, webhook FROM webhook_outbox
                    WHERE COALESCE(expires_at, created_at + 86400) <= ?
                    """,
                arguments: [now.timeIntervalSince1970])
            var purged: [String: Int] = [:]
            for row in rows {
                let webhook: String = row["webhook"]
                guard !configured.contains(webhook) else { continue }
                let seq: Int64 = row["seq"]
                try db.execute(sql: "DELETE FROM webhook_outbox WHERE seq = ?", arguments: [seq])
                purged[webhook, default: 0] += 1
            }
            return purged
        }
    }
}
