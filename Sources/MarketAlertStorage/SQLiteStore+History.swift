import Foundation
import GRDB
import MarketAlertCore
import MarketAlertKit

/// Premium history in SQLite: `premium_history(rule, asset, at, min_pct, max_pct, last_pct, notifications)`,
/// one row per rule, asset and slot (`at` = the slot's start, Unix seconds UTC), primary key (rule, asset, at).
extension SQLiteStore: HistoryStore {
    package static func migrateHistory(_ db: Database) throws {
        try db.create(table: "premium_history") { t in
            t.column("rule", .text).notNull()
            t.column("asset", .text).notNull()
            t.column("at", .double).notNull()
            t.column("min_pct", .double).notNull()
            t.column("max_pct", .double).notNull()
            t.column("last_pct", .double).notNull()
            t.column("notifications", .integer).notNull().defaults(to: 0)
            t.primaryKey(["rule", "asset", "at"])
        }
        try db.create(index: "premium_history_by_at", on: "premium_history", columns: ["at"])
    }

    /// Inside `commit`'s transaction. A slot written twice (a restart within one slot) is merged: min of the
    /// minima, max of the maxima, the later last, notifications added.
    package static func writeHistory(_ samples: [HistorySample], pruneBefore: Date?, _ db: Database) throws {
        if !samples.isEmpty {
            let statement = try db.cachedStatement(
                sql: """
                    INSERT INTO premium_history (rule, asset, at, min_pct, max_pct, last_pct, notifications) VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(rule, asset, at) DO UPDATE SET min_pct = min(min_pct, excluded.min_pct),
                        max_pct = max(max_pct, excluded.max_pct), last_pct = excluded.last_pct,
                        notifications = notifications + excluded.notifications
                    """)
            for s in samples {
                try statement.execute(arguments: [
                    s.rule, s.asset, s.at.timeIntervalSince1970, s.minPct, s.maxPct, s.lastPct, s.notifications,
                ])
            }
        }
        if let pruneBefore {
            try db.execute(sql: "DELETE FROM premium_history WHERE at < ?", arguments: [pruneBefore.timeIntervalSince1970])
        }
    }

    package func samples(rule: String, asset: String, since: Date, until: Date, limit: Int?) async throws -> [HistorySample] {
        let (samples, skipped) = try await writer.read { db in
            var samples: [HistorySample] = []
            var skipped = 0
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT rule, asset, at, min_pct, max_pct, last_pct, notifications FROM premium_history
                    WHERE rule = ? AND asset = ? AND at >= ? AND at < ? ORDER BY at
                    """,
                arguments: [rule, asset, since.timeIntervalSince1970, until.timeIntervalSince1970])
            while let row = try rows.next() {
                guard let sample = Self.sample(row) else { skipped += 1; continue }
                samples.append(sample)
                if let limit, samples.count >= limit { break }
            }
            return (samples, skipped)
        }
        UnreadableHistoryRows.record(skipped, reading: "\(rule)/\(asset)")
        return samples
    }

    package func fold<Value: Sendable>(
        since: Date, into initial: Value, _ add: @escaping @Sendable (inout Value, HistorySample) -> Void
    ) async throws -> Value {
        try await writer.read { db in
            var value = initial
            var skipped = 0
            let rows = try Row.fetchCursor(
                db,
                sql: "SELECT rule, asset, at, min_pct, max_pct, last_pct, notifications FROM premium_history WHERE at >= ? ORDER BY at",
                arguments: [since.timeIntervalSince1970])
            while let row = try rows.next() {
                guard let sample = Self.sample(row) else { skipped += 1; continue }
                add(&value, sample)
            }
            UnreadableHistoryRows.record(skipped, reading: "the warm-up")
            return value
        }
    }

    package func buckets(since: Date, until: Date, count: Int) async throws -> [String: [HistoryBucket]] {
        let start = since.timeIntervalSince1970
        let width = max(until.timeIntervalSince1970 - start, 1) / Double(max(count, 1))
        return try await writer.read { db in
            var result: [String: [HistoryBucket]] = [:]
            // Only numeric values enter the aggregates (SQLite orders text above every number, so one corrupt
            // row would otherwise become a bucket's maximum).
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT rule, asset, CAST((at - ?) / ? AS INTEGER) AS bucket, min(min_pct) AS low, max(max_pct) AS high
                    FROM premium_history WHERE at >= ? AND at < ? AND typeof(at) IN ('real', 'integer')
                        AND typeof(min_pct) IN ('real', 'integer') AND typeof(max_pct) IN ('real', 'integer')
                    GROUP BY rule, asset, bucket ORDER BY rule, asset, bucket
                    """,
                arguments: [start, width, start, until.timeIntervalSince1970])
            var skipped = 0
            while let row = try rows.next() {
                guard let rule = String.fromDatabaseValue(row["rule"]), let asset = String.fromDatabaseValue(row["asset"]),
                    let bucket = Int.fromDatabaseValue(row["bucket"]), let low = Double.fromDatabaseValue(row["low"]),
                    let high = Double.fromDatabaseValue(row["high"]), low.isFinite, high.isFinite
                else { skipped += 1; continue }
                result[PremiumEvents.key(rule: rule, asset: asset), default: []].append(HistoryBucket(index: bucket, minPct: low, maxPct: high))
            }
            UnreadableHistoryRows.record(skipped, reading: "the sparklines")
            return result
        }
    }

    /// The sample in `row`, or nil when a column does not hold what it should (text in a number column, a
    /// non-finite pct): GRDB's non-optional row subscripts would trap on such a value.
    private static func sample(_ row: Row) -> HistorySample? {
        guard let rule = String.fromDatabaseValue(row["rule"]), let asset = String.fromDatabaseValue(row["asset"]),
            let at = Double.fromDatabaseValue(row["at"]), at.isFinite, let minPct = Double.fromDatabaseValue(row["min_pct"]),
            let maxPct = Double.fromDatabaseValue(row["max_pct"]), let lastPct = Double.fromDatabaseValue(row["last_pct"]),
            minPct.isFinite, maxPct.isFinite, lastPct.isFinite, let notifications = Int.fromDatabaseValue(row["notifications"])
        else { return nil }
        return HistorySample(
            rule: rule, asset: asset, at: Date(timeIntervalSince1970: at), minPct: minPct, maxPct: maxPct, lastPct: lastPct,
            notifications: notifications)
    }

    /// Opens `directory/state.sqlite` read-only, without migrating or writing (works beside the running
    /// daemon: WAL readers do not block its writes). For `marketalertd history`.
    package static func openReadOnly(directory: String) throws -> SQLiteStore {
        let path = URL(fileURLWithPath: directory).appendingPathComponent("state.sqlite").path
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(5)
        let pool = try DatabasePool(path: path, configuration: configuration)
        return SQLiteStore(reader: pool, path: path)
    }
}
