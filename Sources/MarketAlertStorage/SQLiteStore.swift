import Foundation
import GRDB
import MarketAlertCore
import MarketAlertKit

/// The daemon's durable state in SQLite (WAL): alert state per key, notifications in flight and the webhook
/// outbox (`AlertStore`, `WebhookQueueStore`). Every access goes through GRDB's async API, which runs it on
/// GRDB's own serial queues, never on the cooperative pool.
package final class SQLiteStore: Sendable {
    package let writer: any DatabaseWriter
    package let path: String?
    /// Checkpoints the WAL off the writer's queue (nil in memory and for a reader).
    package let checkpointer: WALCheckpointer?

    /// Opens (creating if needed) `directory/state.sqlite` and migrates it.
    package init(directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = URL(fileURLWithPath: directory).appendingPathComponent("state.sqlite").path
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            try WALCheckpointer.prepare(db)
        }
        let pool = try DatabasePool(path: path, configuration: configuration)  // DatabasePool uses WAL
        self.writer = pool
        self.path = path
        try Self.migrator.migrate(pool)
        checkpointer = try WALCheckpointer(path: path)
    }

    /// An in-memory store for tests.
    package init(inMemory: ()) throws {
        let queue = try DatabaseQueue()
        self.writer = queue
        self.path = nil
        self.checkpointer = nil
        try Self.migrator.migrate(queue)
    }

    /// An already opened database, not migrated (`openReadOnly` for `marketalertd history`).
    package init(reader: any DatabaseWriter, path: String?) {
        self.writer = reader
        self.path = path
        self.checkpointer = nil
    }

    /// Every write of the store: a transaction on the writer's queue, then the checkpointer told of the commit.
    package func write<T: Sendable>(_ updates: @Sendable (Database) throws -> T) async throws -> T {
        let result = try await writer.write(updates)
        checkpointer?.committed()
        return result
    }

    package static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "alert_state") { t in
                t.primaryKey("key", .text)
                t.column("kind", .text).notNull()
                t.column("state", .blob).notNull()
                t.column("updated_at", .double).notNull()
            }
            try db.create(table: "webhook_outbox") { t in
                t.autoIncrementedPrimaryKey("seq")
                t.column("webhook", .text).notNull()
                t.column("event_id", .text).notNull()
                t.column("body", .blob).notNull()
                t.column("created_at", .double).notNull()
                t.column("attempts", .integer).notNull().defaults(to: 0)
                t.column("next_attempt_at", .double).notNull()
                t.column("last_error", .text)
            }
            try db.create(index: "webhook_outbox_by_webhook", on: "webhook_outbox", columns: ["webhook", "seq"])
        }
        // When a queued notification stops being worth sending (created_at + the webhook's max_age at enqueue
        // time), so rows of a webhook that was removed from the config can still be purged. NULL on older rows.
        migrator.registerMigration("v2-webhook-outbox-expires-at") { db in
            try db.alter(table: "webhook_outbox") { t in
                t.add(column: "expires_at", .double)
            }
        }
        migrator.registerMigration("v3-pending-events") { db in
            // Notifications decided but not yet handed to every sink; see `commit(states:pending:at:)`.
            try db.create(table: "pending_event") { t in
                t.autoIncrementedPrimaryKey("seq")
                t.column("event_id", .text).notNull().unique()
                t.column("event", .blob).notNull()
                t.column("created_at", .double).notNull()
            }
        }
        migrator.registerMigration("v4-silences", migrate: migrateSilences)
        migrator.registerMigration("v5-premium-history", migrate: migrateHistory)
        return migrator
    }
}
