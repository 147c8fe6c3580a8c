import Foundation
import Logging
import MarketAlertCore
import MarketAlertKit
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// The HA group's durable state in PostgreSQL: alert state, pending notifications, the webhook outbox and
/// silences (`AlertStore`, `WebhookQueueStore`, `SilenceStore`, same semantics as `SQLiteStore`) plus the
/// leader lease (`PostgresStore+Lease`). Every write runs in a transaction that first checks, with the lease
/// row locked `FOR SHARE`, that this instance still holds the lease at its epoch and that it has not expired
/// by the database's clock (`fencedTransaction`); a takeover's `UPDATE` of that row therefore waits for, or
/// is seen by, every such write: no write of an old epoch lands after a new epoch exists.
///
/// The connection pool runs as a service (`run()`, in the daemon's ServiceGroup, before everything that uses
/// the store so it stops after them); until it runs, queries wait. A one-off use runs it with `withRunning`.
/// Every operation has a deadline on the injected clock (`operationTimeout`); an operation cancelled or out
/// of time closes its connection, so nothing waits on a database that stopped answering.
package final class PostgresStore: Sendable {
    package let client: PostgresClient
    package let logger: Logger
    package let clock: any DaemonClock
    /// How long one operation may take on `clock` (`defaultOperationTimeout` in the daemon).
    package let operationTimeout: Duration
    /// What this process writes in `ha_lease.holder`: the instance name and a per-process token, so two
    /// instances configured with the same name still never share a lease.
    package let holder: String
    package let instance: String
    /// The epoch this instance leads with; nil on a standby. Set by the lease keeper.
    private let fence = Mutex<Int64?>(nil)
    /// Where a refused fenced write is reported (`LeadershipEvent.fenced`; the lease keeper steps down).
    private let fencing = Mutex<LeadershipEvents?>(nil)
    private let lifecycle = Mutex(PoolLifecycle())
    /// Finished by `shutdown()`: ends `run()`.
    private let stopRequests: (stream: AsyncStream<Void>, continuation: AsyncStream<Void>.Continuation)
    /// Operations, run as children of `run()` (never of the caller: see `bounded`, in `PostgresStore+Bounded`).
    let operations: (stream: AsyncStream<@Sendable () async -> Void>, continuation: AsyncStream<@Sendable () async -> Void>.Continuation)

    package init(
        url: PostgresURL, instance: String, logger: Logger, clock: any DaemonClock = SystemClock(),
        operationTimeout: Duration = PostgresStore.defaultOperationTimeout
    ) throws {
        self.client = PostgresClient(configuration: try url.clientConfiguration(), backgroundLogger: logger)
        self.logger = logger
        self.clock = clock
        self.operationTimeout = operationTimeout
        self.instance = instance
        self.holder = instance + " #" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
        self.stopRequests = AsyncStream.makeStream(of: Void.self)
        self.operations = AsyncStream.makeStream(of: (@Sendable () async -> Void).self)
    }

    private struct PoolLifecycle {
        var started = false
        /// `client.run()` is being called: operations may lease connections.
        var running = false
        var ended = false
        var stopRequested = false
        var waiters: [CheckedContinuation<Void, Never>] = []
        /// Operations waiting for the pool to run, by id (removed when cancelled).
        var runWaiters: [UInt64: CheckedContinuation<Bool, Never>] = [:]
        var nextRunWaiter: UInt64 = 0
    }

    /// Runs the connection pool until `shutdown()`, a graceful shutdown or cancellation; then every connection
    /// is closed and the store is unusable. Runs once: a second call, or a call after `shutdown()`, returns at once.
    package func run() async {
        let proceed = lifecycle.withLock { state -> Bool in
            defer { state.started = true }
            return !state.started && !state.stopRequested
        }
        if proceed {
            await withTaskGroup(of: Void.self) { [client, stopRequests] group in
                group.addTask { [self] in
                    markRunning()
                    await client.run()  // ends at graceful shutdown or cancellation
                }
                group.addTask { for await _ in stopRequests.stream {} }  // ends at `shutdown()` or cancellation
                group.addTask { [operations] in
                    // Ends when the pool stops (cancelled with the group); operations still running are
                    // cancelled then, and the stopped pool fails whatever they wait for.
                    await withDiscardingTaskGroup { running in
                        for await operation in operations.stream { running.addTask { await operation() } }
                    }
                }
                await group.next()
                group.cancelAll()
            }
        }
        operations.continuation.finish()
        let (waiters, runWaiters) = lifecycle.withLock { state -> ([CheckedContinuation<Void, Never>], [CheckedContinuation<Bool, Never>]) in
            state.ended = true
            defer {
                state.waiters = []
                state.runWaiters = [:]
            }
            return (state.waiters, Array(state.runWaiters.values))
        }
        for waiter in waiters { waiter.resume() }
        for waiter in runWaiters { waiter.resume(returning: false) }
    }

    private func markRunning() {
        let waiters = lifecycle.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.running = true
            defer { state.runWaiters = [:] }
            return Array(state.runWaiters.values)
        }
        for waiter in waiters { waiter.resume(returning: true) }
    }

    /// Waits until the pool runs (true), or has ended or the task is cancelled (false). An operation leases a
    /// connection only then: postgres-nio queues a lease made before `run()`, and such a lease, cancelled by
    /// the operation's deadline before the pool ran, could leave the operation waiting for ever.
    func poolRunning() async -> Bool {
        let id = lifecycle.withLock { state -> UInt64 in
            state.nextRunWaiter += 1
            return state.nextRunWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let ready = lifecycle.withLock { state -> Bool? in
                    if state.running { return true }
                    if state.ended || Task.isCancelled { return false }
                    state.runWaiters[id] = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = lifecycle.withLock { $0.runWaiters.removeValue(forKey: id) }
            waiter?.resume(returning: false)
        }
    }

    /// Ends `run()` and returns when it has returned (at once when it never ran); the store is unusable afterwards.
    package func shutdown() async {
        stopRequests.continuation.finish()
        operations.continuation.finish()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = lifecycle.withLock { state -> Bool in
                state.stopRequested = true
                guard state.started, !state.ended else { return true }
                state.waiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// Runs `body` with the connection pool running, and stops the pool when it returns: a one-off use outside
    /// the daemon's service group (`check-config --connect`, `history`).
    package func withRunning<T>(_ body: (PostgresStore) async throws -> T) async throws -> T {
        let outcome = await withTaskGroup(of: Void.self, returning: Result<T, any Error>.self) { group in
            group.addTask { await self.run() }
            let outcome: Result<T, any Error>
            do { outcome = .success(try await body(self)) } catch { outcome = .failure(error) }
            await shutdown()
            return outcome
        }
        return try outcome.get()
    }

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

extension PostgresStore: Service {}
