import Foundation
import MarketAlertCore

/// Work that had not finished when its deadline on the daemon's clock came.
package struct DeadlineExceeded: Error, Sendable, Equatable, CustomStringConvertible {
    package var timeout: Duration
    package var description: String { "no answer within \(DurationText.format(timeout))" }
}

extension DaemonClock {
    /// `work`'s result, or `DeadlineExceeded` when it has not finished `timeout` from now on this clock (so
    /// tests drive the deadline with `ManualClock`). The work and a sleep race in a task group: whichever ends
    /// first wins, the other is cancelled and awaited, so `work` must end promptly when cancelled. Errors of
    /// `work` and the caller's cancellation pass through. `label` names the deadline's sleep (tests wait for
    /// it by name).
    package func withDeadline<T: Sendable>(
        _ timeout: Duration, label: ClockLabel = .deadline, _ work: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let deadline = now().addingTimeInterval(max(timeout, .zero).seconds)
        return try await withThrowingTaskGroup(of: DeadlineOutcome<T>.self) { group in
            group.addTask { .finished(try await work()) }
            group.addTask {
                try await sleep(until: deadline, label: label)
                return .timedOut
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw DeadlineExceeded(timeout: timeout) }
            switch first {
            case .finished(let value): return value
            case .timedOut: throw DeadlineExceeded(timeout: timeout)
            }
        }
    }
}

private enum DeadlineOutcome<T: Sendable>: Sendable {
    case finished(T)
    case timedOut
}
