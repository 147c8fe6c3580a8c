import MarketAlertKit
import MarketAlertStorage
import Synchronization

/// Shared between the outbox actor and one target's delivery loop: the target's current settings (swapped
/// on reload), the wake-up signal (a notification was queued) and the stop handshake.
///
/// Stopping: `requestStop()` tells whether the loop is between attempts. If it is, the outbox cancels the
/// loop's task (ending any wait at once); if it is mid-attempt, the attempt is allowed to finish and be
/// recorded, and the loop exits right after (`endAttempt()` returns true).
package final class WebhookLoopControl: Sendable {
    private struct State {
        var target: any DeliveryTarget
        var stopping = false
        var attempting = false
    }

    private let state: Mutex<State>
    /// Buffers at most one wake-up: several enqueues while the loop is busy wake it once.
    package let wakeups: AsyncStream<Void>
    private let wakeContinuation: AsyncStream<Void>.Continuation

    package init(target: any DeliveryTarget) {
        state = Mutex(State(target: target))
        (wakeups, wakeContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    package var target: any DeliveryTarget { state.withLock { $0.target } }

    package var isStopping: Bool { state.withLock { $0.stopping } }

    /// New settings for the same webhook; they apply from the loop's next step.
    package func replace(_ target: any DeliveryTarget) {
        state.withLock { $0.target = target }
        wake()
    }

    package func wake() { wakeContinuation.yield(()) }

    /// False when a stop was requested: the loop must not start another attempt.
    package func beginAttempt() -> Bool {
        state.withLock { state in
            if state.stopping { return false }
            state.attempting = true
            return true
        }
    }

    /// True when a stop was requested during the attempt.
    package func endAttempt() -> Bool {
        state.withLock { state in
            state.attempting = false
            return state.stopping
        }
    }

    /// Asks the loop to stop; true when it is not mid-attempt, so its task may be cancelled at once.
    package func requestStop() -> Bool {
        let idle = state.withLock { state in
            state.stopping = true
            return !state.attempting
        }
        wakeContinuation.finish()
        return idle
    }
}
