import Foundation
import MarketAlertConfigReader
import MarketAlertCore
import MarketAlertDelivery
import MarketAlertEngineLoop
import MarketAlertExchanges
import MarketAlertKit
import MarketAlertStorage
import Synchronization

/// Whether the evaluator loop is alive, for `/healthz`: the same loop that pings the systemd watchdog after
/// every input. It is alive while it runs and no single input (an event, a deadline wake, with the publishing
/// it causes) has been in hand longer than `stuckAfter`. An idle loop waiting for its next event or deadline
/// is alive; a loop blocked on a sink, or one that has returned, is not.
///
/// Read without going through the loop's actor, so a loop that is stuck still gets an answer.
package final class EngineLiveness: EngineLoopObserver {
    package enum Verdict: Sendable, Equatable {
        case alive
        case notStarted
        case stopped
        case stuck(since: Date)
    }

    private struct State {
        var started = false
        var stopped = false
        var busySince: Date?
        var lastInputAt: Date?
        var inputs = 0
    }

    private let state = Mutex(State())
    package let stuckAfter: Duration

    package init(stuckAfter: Duration) { self.stuckAfter = stuckAfter }

    package func loopStarted(at now: Date) { state.withLock { $0.started = true } }

    package func inputBegan(_ event: EngineEvent?, at now: Date) {
        state.withLock {
            $0.started = true  // also when attached to a loop already running
            $0.busySince = now
        }
    }

    package func inputEnded(at now: Date) {
        state.withLock { state in
            state.busySince = nil
            state.lastInputAt = now
            state.inputs += 1
        }
    }

    package func loopStopped() { state.withLock { $0.stopped = true } }

    /// Quotes decided outside the loop count as handled input; they say nothing about the loop being stuck.
    package func quotesDecided(_ exchange: ExchangeID, count: Int, at now: Date) {
        state.withLock { state in
            state.lastInputAt = now
            state.inputs += 1
        }
    }

    /// The verdict at `now`.
    package func verdict(now: Date) -> Verdict {
        state.withLock { state in
            if state.stopped { return .stopped }
            if !state.started { return .notStarted }
            if let since = state.busySince, now.timeIntervalSince(since) > stuckAfter.seconds { return .stuck(since: since) }
            return .alive
        }
    }

    /// When the loop last finished an input, and how many it has handled.
    package var lastInput: (at: Date?, count: Int) { state.withLock { ($0.lastInputAt, $0.inputs) } }
}
