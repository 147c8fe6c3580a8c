import MarketAlertKit
import MarketAlertStorage
import Synchronization

/// A one-shot signal that ends `WebhookOutbox.run()`'s wait: the first `signal` wins and is kept, so a
/// signal sent before anyone waits is not lost. Safe to call from cancellation and shutdown handlers.
package final class WebhookOutboxStopSignal: Sendable {
    package enum Mode: Sendable, Equatable {
        /// Let in-flight attempts finish.
        case graceful
        /// Abandon in-flight attempts.
        case cancel
    }

    private struct State {
        var mode: Mode?
        var waiters: [CheckedContinuation<Mode, Never>] = []
    }

    private let state = Mutex(State())

    package func signal(_ mode: Mode) {
        let (waiters, winner) = state.withLock { state -> ([CheckedContinuation<Mode, Never>], Mode) in
            if let existing = state.mode { return ([], existing) }
            state.mode = mode
            let waiters = state.waiters
            state.waiters.removeAll()
            return (waiters, mode)
        }
        for waiter in waiters { waiter.resume(returning: winner) }
    }

    package func wait() async -> Mode {
        await withCheckedContinuation { continuation in
            let mode = state.withLock { state -> Mode? in
                if let mode = state.mode { return mode }
                state.waiters.append(continuation)
                return nil
            }
            if let mode { continuation.resume(returning: mode) }
        }
    }
}
