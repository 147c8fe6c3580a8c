/// Exponential backoff with jitter: `base × 2^(failures-1)`, capped at `maximum`, then spread by up to
/// ±`jitter` (a fraction) so many daemons do not retry in step. `random` is injected (0..<1) for tests.
package struct Backoff: Sendable, Equatable {
    package var base: Duration
    package var maximum: Duration
    package var jitter: Double

    package init(base: Duration, maximum: Duration, jitter: Double = 0.2) {
        self.base = base
        self.maximum = maximum
        self.jitter = jitter
    }

    /// The wait after `failures` consecutive failures (1 = the first failure); never below `minimum`
    /// (a server's Retry-After).
    package func delay(afterFailures failures: Int, random: Double, minimum: Duration? = nil) -> Duration {
        let exponent = min(max(failures - 1, 0), 30)
        let raw = min(base.seconds * Double(1 << exponent), maximum.seconds)
        let spread = raw * jitter * (random * 2 - 1)
        let seconds = max(0, min(raw + spread, maximum.seconds))
        let floor = minimum?.seconds ?? 0
        return .nanoseconds(Int64(max(seconds, floor) * 1e9))
    }
}
