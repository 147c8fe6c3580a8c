import Foundation

/// The daemon's one source of time. Everything that waits (poll intervals, backoff, `for`, repeat intervals,
/// IPO boundaries) sleeps through this, so tests drive it in virtual time with `ManualClock`.
package protocol DaemonClock: Sendable {
    /// The current instant (UTC; a `Date` has no zone).
    func now() -> Date
    /// Suspends until `deadline`; throws `CancellationError` when the task is cancelled.
    func sleep(until deadline: Date) async throws
}

extension DaemonClock {
    package func sleep(for duration: Duration) async throws {
        try await sleep(until: now().addingTimeInterval(duration.seconds))
    }
}

/// Wall-clock time; sleeps on the monotonic clock for the remaining interval.
package struct SystemClock: DaemonClock {
    package init() {}

    package func now() -> Date { Date() }

    package func sleep(until deadline: Date) async throws {
        let interval = deadline.timeIntervalSinceNow
        if interval > 0 {
            try await Task.sleep(for: .nanoseconds(Int64(min(interval, 86_400 * 365) * 1e9)), clock: .continuous)
        } else {
            try Task.checkCancellation()
        }
    }
}
