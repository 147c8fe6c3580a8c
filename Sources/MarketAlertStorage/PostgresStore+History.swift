import Foundation
import MarketAlertCore
import MarketAlertKit
import PostgresNIO

/// Premium history in PostgreSQL, as `SQLiteStore+History`: `premium_history(rule, asset, at, min_pct,
/// max_pct, last_pct, notifications)`, one row per rule, asset and slot (`at` = the slot's start, Unix
/// seconds UTC). Written by `commit` inside its fenced transaction, so a fenced-out instance writes no
/// history either; read by any instance (the API, the status page, `marketalertd history`, warm-up).
extension PostgresStore: HistoryStore {
    package static let historyMigration = PostgresMigrations.Migration(version: 2, name: "premium history", statements: [
        """
        CREATE TABLE premium_history (
            rule text NOT NULL, asset text NOT NULL, at double precision NOT NULL, min_pct double precision NOT NULL,
            max_pct double precision NOT NULL, last_pct double precision NOT NULL, notifications integer NOT NULL DEFAULT 0,
            PRIMARY KEY (rule, asset, at))
        """,
        "CREATE INDEX premium_history_by_at ON premium_history (at)",
    ])

    /// Inside `commit`'s transaction: every sample in one statement (arrays unnested), a slot written twice
    /// merged as in SQLite (min of the minima, max of the maxima, the later last, notifications added).
    package static func writeHistory(_ samples: [HistorySample], pruneBefore: Date?, _ connection: PostgresConnection, logger: Logger) async throws {
        if !samples.isEmpty {
            let rules = samples.map(\.rule)
            let assets = samples.map(\.asset)
            let ats = samples.map(\.at.timeIntervalSince1970)
            let minima = samples.map(\.minPct)
            let maxima = samples.map(\.maxPct)
            let lasts = samples.map(\.lastPct)
            let counts = samples.map { Int32(clamping: $0.notifications) }
            try await connection.query(
                """
                INSERT INTO premium_history (rule, asset, at, min_pct, max_pct, last_pct, notifications)
                SELECT * FROM UNNEST(\(rules)::text[], \(assets)::text[], \(ats)::float8[], \(minima)::float8[],
                    \(maxima)::float8[], \(lasts)::float8[], \(counts)::int4[])
                ON CONFLICT (rule, asset, at) DO UPDATE SET min_pct = LEAST(premium_history.min_pct, excluded.min_pct),
                    max_pct = GREATEST(premium_history.max_pct, excluded.max_pct), last_pct = excluded.last_pct,
                    notifications = premium_history.notifications + excluded.notifications
                """, logger: logger)
        }
        if let pruneBefore {
            try await connection.query("DELETE FROM premium_history WHERE at < \(pruneBefore.timeIntervalSince1970)", logger: logger)
        }
    }

    package func samples(rule: String, asset: String, since: Date, until: Date, limit: Int?) async throws -> [HistorySample] {
        let from = since.timeIntervalSince1970
        let to = until.timeIntervalSince1970
        let (samples, skipped) = try await read { [self] connection in
            // The cap is one row more than asked, so a page that skips a row still fills when it can.
            let cap = limit.map { Int64($0) * 2 + 16 } ?? Int64.max
            let rows = try await connection.query(
                """
                SELECT rule, asset, at, min_pct, max_pct, last_pct, notifications FROM premium_history
                WHERE rule = \(rule) AND asset = \(asset) AND at >= \(from) AND at < \(to) ORDER BY at LIMIT \(cap)
                """, logger: logger)
            var result: [HistorySample] = []
            var skipped = 0
            for try await row in rows {
                guard let sample = Self.sample(row) else { skipped += 1; continue }
                if let limit, result.count >= limit { continue }  // drain the rest of the bounded answer
                result.append(sample)
            }
            return (result, skipped)
        }
        UnreadableHistoryRows.record(skipped, reading: "\(rule)/\(asset)")
        return samples
    }

    package func fold<Value: Sendable>(
        since: Date, into initial: Value, _ add: @escaping @Sendable (inout Value, HistorySample) -> Void
    ) async throws -> Value {
        let from = since.timeIntervalSince1970
        return try await read { [self] connection in
            var value = initial
            var skipped = 0
            let rows = try await connection.query(
                "SELECT rule, asset, at, min_pct, max_pct, last_pct, notifications FROM premium_history WHERE at >= \(from) ORDER BY at",
                logger: logger)
            for try await row in rows {
                guard let sample = Self.sample(row) else { skipped += 1; continue }
                add(&value, sample)
            }
            UnreadableHistoryRows.record(skipped, reading: "the warm-up")
            return value
        }
    }

    package func buckets(since: Date, until: Date, count: Int) async throws -> [String: [HistoryBucket]] {
        let start = since.timeIntervalSince1970
        let end = until.timeIntervalSince1970
        let width = max(end - start, 1) / Double(max(count, 1))
        return try await read { [self] connection in
            let rows = try await connection.query(
                """
                SELECT rule, asset, CAST(FLOOR((at - \(start)) / \(width)) AS bigint) AS bucket, MIN(min_pct), MAX(max_pct)
                FROM premium_history WHERE at >= \(start) AND at < \(end) GROUP BY rule, asset, bucket ORDER BY rule, asset, bucket
                """, logger: logger)
            var result: [String: [HistoryBucket]] = [:]
            var skipped = 0
            for try await row in rows {
                guard let (rule, asset, bucket, low, high) = try? row.decode((String, String, Int64, Double, Double).self), low.isFinite,
                    high.isFinite, let index = Int(exactly: bucket)
                else { skipped += 1; continue }
                result[PremiumEvents.key(rule: rule, asset: asset), default: []].append(HistoryBucket(index: index, minPct: low, maxPct: high))
            }
            UnreadableHistoryRows.record(skipped, reading: "the sparklines")
            return result
        }
    }

    /// The sample in `row`, or nil when it cannot be decoded or holds a non-finite value (float8 takes `NaN`
    /// and `Infinity`): one bad row is skipped, never the end of the read.
    private static func sample(_ row: PostgresRow) -> HistorySample? {
        guard let row = try? row.decode((String, String, Double, Double, Double, Double, Int32).self), row.2.isFinite, row.3.isFinite,
            row.4.isFinite, row.5.isFinite
        else { return nil }
        return HistorySample(
            rule: row.0, asset: row.1, at: Date(timeIntervalSince1970: row.2), minPct: row.3, maxPct: row.4, lastPct: row.5,
            notifications: Int(row.6))
    }
}
