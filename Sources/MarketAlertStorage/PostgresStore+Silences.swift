import Foundation
import MarketAlertCore
import MarketAlertKit
import PostgresNIO

/// Silences, as `SQLiteStore+Silences`. Reading needs no lease (a standby lists them too); the purge of
/// silences ended over a week ago and every change are fenced, so only the leader writes.
extension PostgresStore: SilenceStore {
    package func silences(now: Date) async throws -> [Silence] {
        let cutoff = now.timeIntervalSince1970 - Silence.retention
        if epoch != nil {
            do {
                try await fencedTransaction { [self] connection in
                    _ = try await connection.query("DELETE FROM silence WHERE ends_at < \(cutoff)", logger: logger)
                }
            } catch is HAWriteRefused {}  // the new leader purges
        }
        return try await read { [self] connection in
            let decoder = JSONDecoder()
            var result: [Silence] = []
            let rows = try await connection.query(
                """
                SELECT id, matchers, starts_at, ends_at, comment, created_by, created_at, end_handled_at
                FROM silence WHERE ends_at >= \(cutoff) ORDER BY created_at, id
                """, logger: logger)
            for try await (id, matchers, startsAt, endsAt, comment, createdBy, createdAt, endHandledAt) in rows.decode(
                (String, Data, Double, Double, String, String, Double, Double?).self)
            {
                // A row whose matchers no longer decode matches nothing: it is skipped rather than failing all.
                guard let decoded = try? decoder.decode(SilenceMatchers.self, from: matchers) else { continue }
                result.append(Silence(
                    id: id, matchers: decoded, startsAt: Date(timeIntervalSince1970: startsAt), endsAt: Date(timeIntervalSince1970: endsAt),
                    comment: comment, createdBy: createdBy, createdAt: Date(timeIntervalSince1970: createdAt),
                    endHandledAt: endHandledAt.map(Date.init(timeIntervalSince1970:))))
            }
            return result
        }
    }

    package func insertSilence(_ silence: Silence) async throws {
        let matchers = try JSONEncoder().encode(silence.matchers)
        try await fencedTransaction { [self] connection in
            _ = try await connection.query(
                """
                INSERT INTO silence (id, matchers, starts_at, ends_at, comment, created_by, created_at, end_handled_at)
                VALUES (\(silence.id), \(matchers), \(silence.startsAt.timeIntervalSince1970), \(silence.endsAt.timeIntervalSince1970),
                \(silence.comment), \(silence.createdBy), \(silence.createdAt.timeIntervalSince1970), NULL)
                """, logger: logger)
        }
    }

    package func expireSilence(id: String, at now: Date) async throws -> Bool {
        let at = now.timeIntervalSince1970
        return try await fencedTransaction { [self] connection in
            var known = false
            for try await _ in try await connection.query("SELECT 1 FROM silence WHERE id = \(id) FOR UPDATE", logger: logger) { known = true }
            guard known else { return false }
            // Already ended: unchanged. Not started yet: it never starts (starts_at = ends_at = now).
            try await connection.query(
                "UPDATE silence SET starts_at = LEAST(starts_at, \(at)), ends_at = \(at) WHERE id = \(id) AND ends_at > \(at)", logger: logger)
            return true
        }
    }

    package func markSilenceEndsHandled(_ ids: [String], at now: Date) async throws {
        guard !ids.isEmpty else { return }
        try await fencedTransaction { [self] connection in
            _ = try await connection.query(
                "UPDATE silence SET end_handled_at = \(now.timeIntervalSince1970) WHERE id = ANY(\(ids)) AND end_handled_at IS NULL",
                logger: logger)
        }
    }
}
