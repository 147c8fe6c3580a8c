import Foundation

/// The daemon's one source of time. Everything that waits (poll intervals, backoff, `for`, repeat intervals,
/// IPO boundaries) sleeps through this, so tests drive it in virtual time with `ManualClock`.
package protocol DaemonClock: Sendable {
    /// The current instant (UTC; a `Date` has no zone).
    func now() -> Date
    /// Suspends until `deadline`; throws `CancellationError` when the task is cancelled. `label` names what
    /// the sleep waits for: tests wait for a named sleeper (`ManualClock`); the system clock ignores it.
    func sleep(until deadline: Date, label: ClockLabel) async throws
}

/// What a sleep on the daemon's clock is for ("engine deadline", "poll binance"). Tests wait until a sleeper
/// of that name is asleep instead of counting sleepers. Build one once per owner (a poller keeps its label),
/// not per sleep: the label is passed by value and `SystemClock` never reads it.
package struct ClockLabel: Sendable, Hashable, CustomStringConvertible {
    package let name: String

    package init(_ name: String) { self.name = name }

    package var description: String { name }

    /// A sleep nobody waits for by name.
    package static let unnamed = ClockLabel("unnamed")
    /// The engine loop's deadline timer (the engine's next deadline, the status refresh, a sink retry).
    package static let engineDeadline = ClockLabel("engine deadline")
    /// The other side of a `withDeadline` race: the work's deadline.
    package static let deadline = ClockLabel("deadline")

    /// A producer's sleep between its polls (`name`: the exchange, `fx`, the IPO source).
    package static func poll(_ name: String) -> ClockLabel { ClockLabel("poll \(name)") }
}

extension DaemonClock {
    package func sleep(until deadline: Date) async throws {
        try await sleep(until: deadline, label: .unnamed)
    }

    package func sleep(for duration: Duration, label: ClockLabel = .unnamed) async throws {
        try await sleep(until: now().addingTimeInterval(duration.seconds), label: label)
    }
}

/// Wall-clock time; sleeps on the monotonic clock for the remaining interval.
package struct SystemClock: DaemonClock {
    /// Waits a duration and throws when cancelled: `Task.sleep` on the continuous clock unless a timer is
    /// given (the daemon's sleeps on its data path's event loop, `SystemClock.onLoop`).
    let wait: @Sendable (Duration) async throws -> Void

    package init() {
        wait = { try await Task.sleep(for: $0, clock: .continuous) }
    }

    package init(wait: @escaping @Sendable (Duration) async throws -> Void) {
        self.wait = wait
    }

    package func now() -> Date { Date() }

    package func sleep(until deadline: Date, label: ClockLabel) async throws {
        let interval = deadline.timeIntervalSinceNow
        if interval > 0 {
            try await wait(.nanoseconds(Int64(min(interval, 86_400 * 365) * 1e9)))
        } else {
            try Task.checkCancellation()
        }
    }
}
