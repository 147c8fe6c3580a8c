import Foundation
import Logging
import MarketAlertCore
import MarketAlertKit
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// The store's transactions: fenced writes (the lease row checked and held `FOR SHARE` first), plain ones and
/// reads, each under the operation deadline of `bounded`.
extension PostgresStore {
    /// Reports every fenced write the database refuses to `events` (nil: to nobody).
    package func reportFencing(to events: LeadershipEvents?) { fencing.withLock { $0 = events } }

    package var epoch: Int64? { fence.withLock { $0 } }

    /// Sets (leader) or clears (standby) the epoch every write is fenced with.
    package func setFence(epoch: Int64?) { fence.withLock { $0 = epoch } }

    /// Runs `body` in a transaction that holds the lease row `FOR SHARE` after checking it is still this
    /// instance's at the current epoch and unexpired; throws `HAWriteRefused` otherwise (nothing is written).
    package func fencedTransaction<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> Result) async throws -> Result {
        guard let epoch = fence.withLock({ $0 }) else { throw HAWriteRefused.notLeader }
        do {
            return try await transaction { [self] connection in
                let rows = try await connection.query(
                    """
                    SELECT epoch FROM ha_lease
                    WHERE name = 'leader' AND holder = \(holder) AND epoch = \(epoch) AND expires_at > clock_timestamp()
                    FOR SHARE
                    """, logger: logger)
                var held = false
                for try await _ in rows { held = true }
                guard held else { throw HAWriteRefused.fenced(epoch: epoch) }
                return try await body(connection)
            }
        } catch let refused as HAWriteRefused {
            if case .fenced(let epoch) = refused {
                let cleared = fence.withLock { current -> Bool in
                    guard current == epoch else { return false }
                    current = nil
                    return true
                }
                if cleared { fencing.withLock { $0 }?.report(.fenced(epoch: epoch)) }
            }
            throw refused
        }
    }

    /// `BEGIN` … `COMMIT` (rolled back when `body` throws); throws what went wrong, unwrapped: the closure's
    /// own error as it is, a PostgreSQL error as `PostgresFailure`.
    package func transaction<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> Result) async throws -> Result {
        do {
            return try await bounded { [client, logger] in
                try await client.withConnection { connection in
                    try await Self.closingWhenCancelled(connection) {
                        try await connection.withTransaction(logger: logger) { connection in try await body(connection) }
                    }
                }
            }
        } catch let error as PostgresTransactionError {
            let first = error.closureError ?? error.beginError ?? error.commitError ?? error.rollbackError ?? error
            if let psql = first as? PSQLError { throw PostgresFailure(psql) }
            throw first
        } catch let error as PSQLError {
            throw PostgresFailure(error)
        }
    }

    /// A read outside any transaction (reads need no lease: a standby reads too).
    package func read<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> Result) async throws -> Result {
        do {
            return try await bounded { [client] in
                try await client.withConnection { connection in
                    try await Self.closingWhenCancelled(connection) { try await body(connection) }
                }
            }
        } catch let error as PSQLError {
            throw PostgresFailure(error)
        }
    }
}
