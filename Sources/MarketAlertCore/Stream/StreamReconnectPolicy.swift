import Foundation

/// When a stream reconnects: exponential backoff with jitter after consecutive failures, where a connection
/// counts as a success only after it has stayed live for `stableAfter` (so a server that accepts, acks and
/// drops at once cannot make the client reconnect at the base rate forever: no storm).
package struct StreamReconnectPolicy: Sendable, Equatable {
    package var backoff: Backoff
    package var stableAfter: Duration
    /// A floor for every reconnect delay (Upbit and Bithumb refuse rapid connection requests).
    package var minimumDelay: Duration

    package init(
        backoff: Backoff = Backoff(base: .seconds(1), maximum: .seconds(60), jitter: 0.2),
        stableAfter: Duration = .seconds(60), minimumDelay: Duration = .zero
    ) {
        self.backoff = backoff
        self.stableAfter = stableAfter
        self.minimumDelay = minimumDelay
    }

    /// The wait before the next attempt after `failures` consecutive failures (1 = first); `random` in 0..<1.
    package func delay(afterFailures failures: Int, random: Double) -> Duration {
        backoff.delay(afterFailures: failures, random: random, minimum: minimumDelay)
    }

    /// The failure count after a connection that was live since `liveSince` (nil: never live) ended at `now`.
    package func failures(after previous: Int, liveSince: Date?, now: Date) -> Int {
        if let liveSince, now.timeIntervalSince(liveSince) >= stableAfter.seconds { return 1 }
        return previous + 1
    }
}
