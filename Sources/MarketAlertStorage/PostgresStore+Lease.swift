import Foundation
import Logging
import MarketAlertKit
import PostgresNIO

/// The leader lease: one row of `ha_lease` (`name = 'leader'`). Expiry is judged by the database's clock
/// (`clock_timestamp()`), never a host's; every takeover increments `epoch`, the fencing token that every
/// write checks (`fencedTransaction`).
extension PostgresStore {
    package enum LeaseAttempt: Sendable, Equatable {
        case acquired(epoch: Int64)
        /// Held by another process; it expires `remaining` seconds from now by the database's clock.
        case held(by: String, remaining: TimeInterval)
    }

    /// The lease as the database sees it (for `check-config --connect` and tests).
    package struct LeaseRow: Sendable, Equatable {
        package var holder: String
        package var epoch: Int64
        /// Seconds until it expires by the database's clock (negative: expired).
        package var remaining: TimeInterval
    }

    /// Takes the lease when it is free, expired, or already this process's (then with a new epoch, so writes
    /// of its previous epoch still in flight are refused).
    package func acquireLease(for seconds: TimeInterval) async throws -> LeaseAttempt {
        try await read { [self] connection in
            let rows = try await connection.query(
                """
                INSERT INTO ha_lease (name, holder, epoch, expires_at)
                VALUES ('leader', \(holder), 1, clock_timestamp() + make_interval(secs => \(seconds)))
                ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, epoch = ha_lease.epoch + 1, expires_at = excluded.expires_at
                WHERE ha_lease.expires_at <= clock_timestamp() OR ha_lease.holder = excluded.holder
                RETURNING epoch
                """, logger: logger)
            var granted: Int64?
            for try await epoch in rows.decode(Int64.self) { granted = epoch }
            if let granted { return .acquired(epoch: granted) }
            let row = try await Self.leaseRow(connection, logger: logger)
            return .held(by: row?.holder ?? "nobody", remaining: row?.remaining ?? 0)
        }
    }

    /// Extends the lease of `epoch`; false when it is no longer this process's at that epoch or already
    /// expired (then someone else may hold it: step down).
    package func renewLease(epoch: Int64, for seconds: TimeInterval) async throws -> Bool {
        try await read { [self] connection in
            let rows = try await connection.query(
                """
                UPDATE ha_lease SET expires_at = clock_timestamp() + make_interval(secs => \(seconds))
                WHERE name = 'leader' AND holder = \(holder) AND epoch = \(epoch) AND expires_at > clock_timestamp()
                RETURNING epoch
                """, logger: logger)
            var renewed = false
            for try await _ in rows { renewed = true }
            return renewed
        }
    }

    /// Ends the lease of `epoch` at once (a clean shutdown), so a standby takes over without waiting.
    package func releaseLease(epoch: Int64) async throws {
        try await read { [self] connection in
            _ = try await connection.query(
                "UPDATE ha_lease SET expires_at = clock_timestamp() WHERE name = 'leader' AND holder = \(holder) AND epoch = \(epoch)",
                logger: logger)
        }
    }

    package func currentLease() async throws -> LeaseRow? {
        try await read { [self] connection in try await Self.leaseRow(connection, logger: logger) }
    }

    private static func leaseRow(_ connection: PostgresConnection, logger: Logger) async throws -> LeaseRow? {
        let rows = try await connection.query(
            "SELECT holder, epoch, EXTRACT(EPOCH FROM expires_at - clock_timestamp())::float8 FROM ha_lease WHERE name = 'leader'",
            logger: logger)
        var row: LeaseRow?
        for try await (holder, epoch, remaining) in rows.decode((String, Int64, Double).self) {
            row = LeaseRow(holder: holder, epoch: epoch, remaining: remaining)
        }
        return row
    }
}
