import MarketAlertKit
import Synchronization

/// The stream driver's random numbers (0..<1) for backoff jitter and renewal spread: SplitMix64, seeded once
/// from the system's generator. The state machine takes one with every event, a frame included, and the
/// system generator is a `getrandom` system call per number: one per frame, for numbers that only matter
/// when a connection fails or renews. Jitter needs spread, not secrecy.
package final class StreamJitter: Sendable {
    private let state: Mutex<UInt64>

    package init(seed: UInt64 = UInt64.random(in: 0...UInt64.max)) {
        state = Mutex(seed)
    }

    package func next() -> Double {
        let bits = state.withLock { state -> UInt64 in
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        return Double(bits >> 11) * 0x1.0p-53  // the top 53 bits: uniform in 0..<1
    }

    /// A fresh generator's `next`, for a source's `random`.
    package static func make() -> @Sendable () -> Double {
        let jitter = StreamJitter()
        return { jitter.next() }
    }
}
