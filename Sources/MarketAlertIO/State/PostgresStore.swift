import Foundation
import Logging
import MarketAlertCore
import PostgresNIO
import Synchronization

/// Why a write under HA was refused. Both mean: this instance must not persist or deliver anything now.
package enum HAWriteRefused: Error, Equatable, CustomStringConvertible {
    /// This instance holds no lease (a standby, or between losing and regaining it).
    case notLeader
    /// The database refused the write: the lease is no longer this instance's at this epoch (expired or taken
    /// over). The instance must step down.
    case fenced(epoch: Int64)

    package var description: String {
        switch self {
        case .notLeader: "not the leader: this instance holds no lease"
        case .fenced(let epoch): "fenced: the lease is no longer held at epoch \(epoch) (expired or taken over)"
        }
    }
}

/// The HA group's durable state in PostgreSQL: alert state, pending notifications, the webhook outbox and
/// silences (`AlertStore`, `WebhookQueueStore`, `SilenceStore`, same semantics as `SQLiteStore`) plus the
/// leader lease (`PostgresStore+Lease`). Every write runs in a transaction that first checks, with the lease
/// row locked `FOR SHARE`, that this instance still holds the lease at its epoch and that it has not expired
/// by the database's clock (`fencedTransaction`); a takeover's `UPDATE` of that row therefore waits for, or
/// is seen by, every such write: no write of an old epoch lands after a new epoch exists.
package final class PostgresStore: Sendable {
    let client: PostgresClient
    let logger: Logger
    /// What this process writes in `ha_lease.holder`: the instance name and a per-process token, so two
    /// instances configured with the same name still never share a lease.
    package let holder: String
    package let instance: String
    /// The epoch this instance leads with; nil on a standby. Set by the lease keeper.
    private let fence = Mutex<Int64?>(nil)
    /// Told when a fenced write was refused (the lease keeper steps down).
    private let onFenced = Mutex<(@Sendable (Int64) -> Void)?>(nil)
    private let runner: Task<Void, Never>

    package init(url: PostgresURL, instance: String, logger: Logger) throws {
        let client = PostgresClient(configuration: try url.clientConfiguration(), backgroundLogger: logger)
        self.client = client
        self.logger = logger
        self.instance = instance
        self.holder = instance + " #" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
        self.runner = Task { await client.run() }
    }

    /// Closes every connection; the store is unusable afterwards.
    package func shutdown() async {
        runner.cancel()
        await runner.value
    }

    package var epoch: Int64? { fence.withLock { $0 } }

    /// Sets (leader) or clears (standby) the epoch every write is fenced with.
    package func setFence(epoch: Int64?) { fence.withLock { $0 = epoch } }

    package func onFenced(_ handler: @escaping @Sendable (Int64) -> Void) { onFenced.withLock { $0 = handler } }

    /// Runs `body` in a transaction that holds the lease row `FOR SHARE` after checking it is still this
    /// instance's at the current epoch and unexpired; throws `HAWriteRefused` otherwise (nothing is written).
    func fencedTransaction<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> Result) async throws -> Result {
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
                if cleared { onFenced.withLock { $0 }?(epoch) }
            }
            throw refused
        }
    }

    /// `BEGIN` … `COMMIT` (rolled back when `body` throws); throws what went wrong, unwrapped: the closure's
    /// own error as it is, a PostgreSQL error as `PostgresFailure`.
    func transaction<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> Result) async throws -> Result {
        do {
            return try await bounded { [client, logger] in
                try await client.withTransaction(logger: logger) { connection in try await body(connection) }
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
    func read<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> Result) async throws -> Result {
        do {
            return try await bounded { [client] in try await client.withConnection { connection in try await body(connection) } }
        } catch let error as PSQLError {
            throw PostgresFailure(error)
        }
    }
}

extension PostgresStore {
    /// How long one database operation may take, waiting for a connection included: the pool keeps retrying
    /// an unreachable server for a minute before it fails a request, far longer than a lease or a watchdog.
    static let operationTimeout: Duration = .seconds(4)

    /// Runs `operation`, cancelled (and failed as unreachable) after `operationTimeout`.
    func bounded<Result: Sendable>(_ operation: @escaping @Sendable () async throws -> Result) async throws -> Result {
        let task = Task { try await operation() }
        let timedOut = Mutex(false)
        let timer = Task {
            try await Task.sleep(for: Self.operationTimeout)
            timedOut.withLock { $0 = true }
            task.cancel()
        }
        defer { timer.cancel() }
        do {
            return try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
        } catch {
            if timedOut.withLock({ $0 }) {
                throw PostgresFailure(description: "PostgreSQL unreachable: no answer within \(Self.operationTimeout)")
            }
            throw error
        }
    }
}

/// A PostgreSQL error in words a log can show: the server's message or the connection problem, never the URL.
package struct PostgresFailure: Error, CustomStringConvertible {
    package var description: String

    init(description: String) { self.description = description }

    init(_ error: PSQLError) {
        if let message = error.serverInfo?[.message] {
            let code = error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
            description = "PostgreSQL: \(message)\(code)"
        } else if let underlying = error.underlying {
            description = "PostgreSQL unreachable: \(underlying)"
        } else {
            description = "PostgreSQL: \(error.code)"
        }
    }
}
