import Foundation
import Logging
import MarketAlertKit
import PostgresNIO

/// Versioned schema of the HA database. Each migration runs once, in order, recorded in `schema_migrations`;
/// all of them run in one transaction under a transaction-scoped advisory lock, so instances starting
/// together apply each migration exactly once (the second waits, then finds nothing left to do).
/// Add new versions at the end; never edit one that has shipped.
package enum PostgresMigrations {
    /// Any constant shared by every instance: the advisory lock's key ("marketal" in ASCII).
    package static let lockKey: Int64 = 0x6D61_726B_6574_616C

    package struct Migration: Sendable {
        package var version: Int
        package var name: String
        /// One statement each (the extended protocol takes one command per query).
        package var statements: [String]
    }

    package static let all: [Migration] = [
        Migration(version: 1, name: "lease, alert state, pending notifications, webhook outbox, silences", statements: [
            """
            CREATE TABLE ha_lease (
                name text PRIMARY KEY, holder text NOT NULL, epoch bigint NOT NULL, expires_at timestamptz NOT NULL)
            """,
            """
            CREATE TABLE alert_state (
                key text PRIMARY KEY, kind text NOT NULL, state bytea NOT NULL, updated_at double precision NOT NULL)
            """,
            """
            CREATE TABLE pending_event (
                seq bigserial PRIMARY KEY, event_id text NOT NULL UNIQUE, event bytea NOT NULL,
                created_at double precision NOT NULL)
            """,
            """
            CREATE TABLE webhook_outbox (
                seq bigserial PRIMARY KEY, webhook text NOT NULL, event_id text NOT NULL, body bytea NOT NULL,
                created_at double precision NOT NULL, attempts integer NOT NULL DEFAULT 0,
                next_attempt_at double precision NOT NULL, last_error text, expires_at double precision,
                claimed_epoch bigint)
            """,
            "CREATE INDEX webhook_outbox_by_webhook ON webhook_outbox (webhook, seq)",
            """
            CREATE TABLE silence (
                id text PRIMARY KEY, matchers bytea NOT NULL, starts_at double precision NOT NULL,
                ends_at double precision NOT NULL, comment text NOT NULL, created_by text NOT NULL,
                created_at double precision NOT NULL, end_handled_at double precision)
            """,
        ]),
        PostgresStore.historyMigration,
    ]

    package static var latest: Int { all.map(\.version).max() ?? 0 }

    /// Applies what is missing; returns the schema version now in place.
    package static func migrate(_ store: PostgresStore, logger: Logger) async throws -> Int {
        try await store.transaction { [self] connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(lockKey))", logger: logger)
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())
                """, logger: logger)
            var current = 0
            for try await version in try await connection.query("SELECT COALESCE(MAX(version), 0) FROM schema_migrations", logger: logger)
                .decode(Int.self) { current = version }
            for migration in all where migration.version > current {
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query(
                    "INSERT INTO schema_migrations (version, name) VALUES (\(migration.version), \(migration.name))", logger: logger)
                logger.notice("database: applied migration \(migration.version) (\(migration.name))")
                current = migration.version
            }
            return current
        }
    }

    /// The version in place without changing anything (0 for an empty database).
    package static func version(_ connection: PostgresConnection, logger: Logger) async throws -> Int {
        var exists = false
        for try await found in try await connection.query("SELECT to_regclass('schema_migrations') IS NOT NULL", logger: logger)
            .decode(Bool.self) { exists = found }
        guard exists else { return 0 }
        var current = 0
        for try await version in try await connection.query("SELECT COALESCE(MAX(version), 0) FROM schema_migrations", logger: logger)
            .decode(Int.self) { current = version }
        return current
    }
}

extension PostgresStore {
    /// Brings the schema up to date (safe when several instances do it at once); returns its version.
    @discardableResult
    package func migrate() async throws -> Int {
        try await PostgresMigrations.migrate(self, logger: logger)
    }

    package func schemaVersion() async throws -> Int {
        try await read { [self] connection in try await PostgresMigrations.version(connection, logger: logger) }
    }

    package static var latestSchemaVersion: Int { PostgresMigrations.latest }
}
