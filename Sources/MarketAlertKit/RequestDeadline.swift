/// A deadline over a whole HTTP exchange: request, response head and body.
///
/// AsyncHTTPClient's `execute(_:timeout:)` bounds the request up to the response head only, and its read
/// timeout restarts with every byte, so a server that sends the head and then one byte a second would hold a
/// poller forever. `run` races the work against a sleep of `timeout` in a task group; whichever finishes
/// first wins and the other is cancelled (AsyncHTTPClient cancels the request and closes the connection when
/// the task executing it or iterating its body is cancelled). Real time: network deadlines are wall-clock.
package enum RequestDeadline {
    /// The work did not finish within `timeout`.
    package struct Exceeded: Error, Sendable, CustomStringConvertible {
        package var timeout: Duration
        package var description: String { "no complete answer within \(timeout)" }
    }

    /// `work`'s result, or `Exceeded` when it takes longer than `timeout`. Errors of `work` (and the
    /// caller's cancellation) pass through.
    /// - Parameter sleep: how the deadline waits (the daemon's HTTP fetcher sleeps on its event loop, see
    ///   `SystemClock.onLoop`); it must end with an error when cancelled.
    package static func run<T: Sendable>(
        within timeout: Duration, sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
        _ work: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await withThrowingTaskGroup(of: Outcome<T>.self) { group in
            group.addTask { .finished(try await work()) }
            group.addTask {
                try await sleep(max(timeout, .zero))
                return .timedOut
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw Exceeded(timeout: timeout) }
            switch first {
            case .finished(let value): return value
            case .timedOut: throw Exceeded(timeout: timeout)
            }
        }
    }

    private enum Outcome<T: Sendable>: Sendable {
        case finished(T)
        case timedOut
    }
}
