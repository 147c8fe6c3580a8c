import Foundation
import MarketAlertKit
import PostgresNIO

/// The webhook outbox, as `SQLiteStore+WebhookQueue`; every write is fenced by the lease, and a delivery is
/// claimed (a fenced write) immediately before its POST, so an instance that lost the lease cannot start one.
extension PostgresStore: WebhookQueueStore {
    private static let columns = "seq, webhook, event_id, body, created_at, attempts, next_attempt_at, last_error, expires_at"

    package func enqueueWebhookNotifications(_ entries: [WebhookOutboxEntry], at now: Date) async throws {
        guard !entries.isEmpty else { return }
        let at = now.timeIntervalSince1970
        try await fencedTransaction { [self] connection in
            for entry in entries {
                try await connection.query(
                    """
                    INSERT INTO webhook_outbox (webhook, event_id, body, created_at, attempts, next_attempt_at, expires_at)
                    VALUES (\(entry.webhook), \(entry.eventID), \(entry.body), \(at), 0, \(at), \(entry.expiresAt.timeIntervalSince1970))
                    """, logger: logger)
            }
        }
    }

    package func webhookOutboxHead(webhook: String) async throws -> WebhookOutboxRow? {
        try await rows(
            PostgresQuery(unsafeSQL: "SELECT \(Self.columns) FROM webhook_outbox WHERE webhook = $1 ORDER BY seq LIMIT 1", binds: binds(webhook))
        ).first
    }

    package func webhookOutboxRows(webhook: String) async throws -> [WebhookOutboxRow] {
        try await rows(PostgresQuery(unsafeSQL: "SELECT \(Self.columns) FROM webhook_outbox WHERE webhook = $1 ORDER BY seq", binds: binds(webhook)))
    }

    package func webhookOutboxCount(webhook: String) async throws -> Int {
        try await read { [self] connection in
            var count = 0
            for try await value in try await connection.query("SELECT COUNT(*) FROM webhook_outbox WHERE webhook = \(webhook)", logger: logger)
                .decode(Int.self) { count = value }
            return count
        }
    }

    package func recordWebhookFailure(seq: Int64, attempts: Int, nextAttemptAt: Date, error: String) async throws {
        try await fencedTransaction { [self] connection in
            _ = try await connection.query(
                """
                UPDATE webhook_outbox SET attempts = \(attempts), next_attempt_at = \(nextAttemptAt.timeIntervalSince1970),
                last_error = \(error) WHERE seq = \(seq)
                """, logger: logger)
        }
    }

    package func deleteWebhookNotification(seq: Int64) async throws {
        try await fencedTransaction { [self] connection in
            _ = try await connection.query("DELETE FROM webhook_outbox WHERE seq = \(seq)", logger: logger)
        }
    }

    /// Records, fenced, that this epoch is about to POST row `seq`; false when the row is gone.
    package func claimWebhookNotification(seq: Int64) async throws -> Bool {
        try await fencedTransaction { [self] connection in
            var claimed = false
            let epoch = self.epoch ?? -1
            let rows = try await connection.query(
                "UPDATE webhook_outbox SET claimed_epoch = \(epoch) WHERE seq = \(seq) RETURNING seq", logger: logger)
            for try await _ in rows { claimed = true }
            return claimed
        }
    }

    package func purgeExpiredWebhookNotifications(exceptFor configured: Set<String>, now: Date) async throws -> [String: Int] {
        try await fencedTransaction { [self] connection in
            var purged: [String: Int] = [:]
            let rows = try await connection.query(
                """
                DELETE FROM webhook_outbox
                WHERE COALESCE(expires_at, created_at + 86400) <= \(now.timeIntervalSince1970) AND NOT (webhook = ANY(\(Array(configured))))
                RETURNING webhook
                """, logger: logger)
            for try await webhook in rows.decode(String.self) { purged[webhook, default: 0] += 1 }
            return purged
        }
    }

    private func binds(_ webhook: String) -> PostgresBindings {
        var binds = PostgresBindings()
        binds.append(webhook)
        return binds
    }

    private func rows(_ query: PostgresQuery) async throws -> [WebhookOutboxRow] {
        try await read { [self] connection in
            var result: [WebhookOutboxRow] = []
            let rows = try await connection.query(query, logger: logger)
            for try await row in rows {
                let (seq, webhook, eventID, body, createdAt, attempts, next, lastError, expiresAt) = try row.decode(
                    (Int64, String, String, Data, Double, Int, Double, String?, Double?).self)
                result.append(WebhookOutboxRow(
                    seq: seq, webhook: webhook, eventID: eventID, body: body, createdAt: Date(timeIntervalSince1970: createdAt),
                    attempts: attempts, nextAttemptAt: Date(timeIntervalSince1970: next), lastError: lastError,
                    expiresAt: expiresAt.map(Date.init(timeIntervalSince1970:))))
            }
            return result
        }
    }
}
