import MarketAlertKit
import PostgresNIO

extension PostgresStore {
    /// How long one database operation may take, waiting for a connection included: the pool keeps retrying
    /// an unreachable server for a minute before it fails a request, far longer than a lease or a watchdog.
    package static let defaultOperationTimeout: Duration = .seconds(4)

    /// Runs `operation` with a deadline of `operationTimeout` on the store's clock; out of time, it is
    /// cancelled and fails as unreachable.
    ///
    /// The operation runs as a child of the pool's `run()`, not of the caller, and the caller waits for its
    /// result with the deadline: when the deadline comes (or the caller is cancelled) the caller is released
    /// at once and the operation is cancelled where it runs. A caller therefore never waits on an operation
    /// that does not end when cancelled; the store's `run()` does, at shutdown, so every operation must end
    /// when cancelled or when the pool stops (see `closingWhenCancelled` for the one that did not).
    package func bounded<Result: Sendable>(_ operation: @escaping @Sendable () async throws -> Result) async throws -> Result {
        let outcome = Handoff<Swift.Result<Result, any Error>>()
        let abandoned = Handoff<Void>()
        let job: @Sendable () async -> Void = { [self] in
            let result = await withTaskGroup(of: Swift.Result<Result, any Error>?.self) { group in
                group.addTask { [self] in
                    guard await poolRunning() else {
                        return .failure(PostgresFailure(description: "PostgreSQL: the connection pool has stopped"))
                    }
                    do { return .success(try await operation()) } catch { return .failure(error) }
                }
                group.addTask { (try? await abandoned.take()).map { _ in nil } ?? nil }  // the caller gave up
                let first = await group.next() ?? nil
                group.cancelAll()
                return first ?? .failure(CancellationError())
            }
            outcome.deliver(result)
        }
        if case .terminated = operations.continuation.yield(job) {
            throw PostgresFailure(description: "PostgreSQL: the connection pool has stopped")
        }
        do {
            return try await clock.withDeadline(operationTimeout, label: .postgresOperation) { try await outcome.take() }.get()
        } catch is DeadlineExceeded {
            abandoned.deliver(())
            throw PostgresFailure(description: "PostgreSQL unreachable: no answer within \(operationTimeout)")
        } catch is CancellationError where Task.isCancelled {
            abandoned.deliver(())
            throw CancellationError()
        }
    }

    /// Runs `body` on `connection`, closing the connection when the task is cancelled: PostgresNIO does not
    /// abandon a query in flight on cancellation, a closed connection fails it at once (and the server rolls
    /// back its transaction). The pool replaces the connection.
    ///
    /// A connection that is closed or closing (by this cancellation or by the server) is handed back to the
    /// pool only once it has closed completely, which is when the pool hears of it: handed back earlier, the
    /// pool would lend it again as idle, and PostgresNIO drops a query written to a connection whose channel
    /// has closed without ever answering it, so that operation would never end (nor the pool's `run()` that
    /// runs it). A connection lent already closed is not used.
    package static func closingWhenCancelled<Result>(
        _ connection: PostgresConnection, _ body: () async throws -> Result
    ) async throws -> Result {
        guard !connection.isClosed else {
            await closed(connection)
            throw PostgresFailure(description: "PostgreSQL: the connection had closed before the query was sent")
        }
        let outcome: Swift.Result<Result, any Error>
        do {
            outcome = .success(try await withTaskCancellationHandler {
                try await body()
            } onCancel: {
                connection.close().whenComplete { _ in }
            })
        } catch {
            outcome = .failure(error)
        }
        if Task.isCancelled || connection.isClosed { await closed(connection) }
        return try outcome.get()
    }

    /// Closes `connection` (again: a close is idempotent, and a cancellation that came after `body` ended
    /// found no handler to close it) and returns once its channel has closed (`closeFuture`: `close()`
    /// returns at once for a connection already closing).
    private static func closed(_ connection: PostgresConnection) async {
        connection.close().whenComplete { _ in }
        try? await connection.closeFuture.get()
    }
}

extension ClockLabel {
    /// The deadline of one PostgreSQL operation (`PostgresStore.bounded`).
    package static let postgresOperation = ClockLabel("postgres operation")
}
