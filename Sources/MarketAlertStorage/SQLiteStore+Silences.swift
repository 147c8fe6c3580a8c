import Foundation
import GRDB
import MarketAlertCore
import MarketAlertKit

/// Silences in the `silence` table (migration `v4-silences`): matchers as JSON, times as Unix seconds.
extension SQLiteStore: SilenceStore {
    package func silences(now: Date) async throws -> [Silence] {
        let cutoff = now.timeIntervalSince1970 - Silence.retention
        return try await write { db in
            try db.execute(sql: "DELETE FROM silence WHERE ends_at < ?", arguments: [cutoff])
            let decoder = JSONDecoder()
            return try Row.fetchAll(db, sql: "SELECT * FROM silence ORDER BY created_at, id").compactMap { row -> Silence? in
                let data: Data = row["matchers"]
                // A row whose matchers no longer decode matches nothing: it is skipped rather than failing all.
                guard let matchers = try? decoder.decode(SilenceMatchers.self, from: data) else { return nil }
                return Silence(
                    id: row["id"], matchers: matchers, startsAt: Date(timeIntervalSince1970: row["starts_at"]),
                    endsAt: Date(timeIntervalSince1970: row["ends_at"]), comment: row["comment"], createdBy: row["created_by"],
                    createdAt: Date(timeIntervalSince1970: row["created_at"]),
                    endHandledAt: (row["end_handled_at"] as Double?).map(Date.init(timeIntervalSince1970:)))
            }
        }
    }

    package func insertSilence(_ silence: Silence) async throws {
        let matchers = try JSONEncoder().encode(silence.matchers)
        try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO silence (id, matchers, starts_at, ends_at, comment, created_by, created_at, end_handled_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, NULL)
                    """,
                arguments: [
                    silence.id, matchers, silence.startsAt.timeIntervalSince1970, silence.endsAt.timeIntervalSince1970, silence.comment,
                    silence.createdBy, silence.createdAt.timeIntervalSince1970,
                ])
        }
    }

    package func expireSilence(id: String, at now: Date) async throws -> Bool {
        let at = now.timeIntervalSince1970
        return try await write { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM silence WHERE id = ?", arguments: [id]) != nil else { return false }
            // Already ended: unchanged. Not started yet: it never starts (starts_at = ends_at = now).
            try db.execute(
                sql: "UPDATE silence SET starts_at = MIN(starts_at, ?), ends_at = ? WHERE id = ? AND ends_at > ?",
                arguments: [at, at, id, at])
            return true
        }
    }

    package func markSilenceEndsHandled(_ ids: [String], at now: Date) async throws {
        guard !ids.isEmpty else { return }
        try await write { db in
            for id in ids {
                try db.execute(
                    sql: "UPDATE silence SET end_handled_at = ? WHERE id = ? AND end_handled_at IS NULL",
                    arguments: [now.timeIntervalSince1970, id])
            }
        }
    }

    /// The `silence` table (registered by `SQLiteStore.migrator`).
    package static func migrateSilences(_ db: Database) throws {
        try db.create(table: "silence") { t in
            t.primaryKey("id", .text)
            t.column("matchers", .blob).notNull()
            t.column("starts_at", .double).notNull()
            t.column("ends_at", .double).notNull()
            t.column("comment", .text).notNull()
            t.column("created_by", .text).notNull()
            t.column("created_at", .double).notNull()
            t.column("end_handled_at", .double)
        }
    }
}
