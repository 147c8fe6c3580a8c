import Foundation
import MarketAlertCore
import MarketAlertDelivery
import MarketAlertExchanges
import MarketAlertKit
import MarketAlertStorage
import Synchronization

/// The one decision site: every input the engine decides (a stream's quotes, the loop's events and timer
/// wakes, HA's takeover) is decided here, one at a time, and every decision is queued in decision order for
/// `EngineLoop`, which alone performs them. Contract: `decideQuotes`, `decide` and `lead` are the only ways
/// the engine changes; readers get snapshots (`read`), never the engine behind the lock.
///
/// The alert engine behind a lock, with what it decided and the loop has not yet carried out, in decision
/// order. `EngineLoop` decides its inputs here and performs every decision (publish, status, log); a stream's
/// quotes are decided here directly, on the thread that read them (`decideQuotes`), without a queue or a
/// task switch in between, and reach the loop only when there is something to perform or a timer to move.
///
/// Why: the streaming daemon decides a quote a few hundred times a second, and almost every decision is
/// "nothing happens". Queueing each one for the loop's task (a queue, a task switch, the loop's round of
/// status, watchdog and timer checks) cost more than the decision itself.
///
/// Order is the lock's: a decision taken here is performed after every decision taken before it, by the
/// loop alone, so publications keep the engine's order (and HA's takeover its place, `Decided.lead`).
package final class EngineCore: Sendable {
    /// What the loop must carry out, in order.
    package enum Decided: Sendable {
        case actions([EngineAction])
        /// HA: from here on this instance leads with `epoch` (everything before was decided as a standby).
        case lead(epoch: Int64)
    }

    /// What the loop must be told after a decision taken outside it.
    package struct Signal: OptionSet, Sendable {
        package let rawValue: Int
        package init(rawValue: Int) { self.rawValue = rawValue }
        /// Decisions wait to be performed (the queue was empty before).
        package static let perform = Signal(rawValue: 1)
        /// The engine's next deadline (or the status refresh) is earlier than the loop's timer.
        package static let reschedule = Signal(rawValue: 2)
    }

    private struct State {
        var engine: AlertEngine
        var decided: [Decided] = []
        /// When the loop's timer wakes next (nil: none armed).
        var armedWake: Date?
        /// Inputs changed something since the status line was last refreshed (at `statusAt`).
        var statusDirty = false
        var statusAt: Date?
        /// Stream quotes decided since the loop last told its observers, per exchange, and when the last was.
        var uncounted: [(exchange: ExchangeID, quotes: Int)] = []
        var lastDecidedAt: Date?
    }

    private let state: Mutex<State>
    package let clock: any DaemonClock

    package init(engine: AlertEngine, clock: any DaemonClock) {
        state = Mutex(State(engine: engine))
        self.clock = clock
    }


    /// Stream quotes of `exchange`, decided at `now` (the engine re-evaluates what they feed). Returns what
    /// the loop must be told; usually nothing.
    package func decideQuotes(_ quotes: [Quote], from exchange: ExchangeID) -> Signal {
        let now = clock.now()
        return state.withLock { state in
            // Counted here, told to the observers by the loop (at least once a second: the status refresh):
            // metrics and liveness cost nothing per quote.
            if let index = state.uncounted.firstIndex(where: { $0.exchange == exchange }) {
                state.uncounted[index].quotes += quotes.count
            } else {
                state.uncounted.append((exchange, quotes.count))
            }
            state.lastDecidedAt = now
            let actions = state.engine.handle(.quotes(exchange, quotes, .update), now: now)
            var signal: Signal = []
            if !actions.isEmpty {
                if state.decided.isEmpty { signal.insert(.perform) }
                state.decided.append(.actions(actions))
            }
            // Only what quotes can bring forward (`quoteDrivenDeadline`); the timer covers the rest already.
            var wanted = state.engine.quoteDrivenDeadline()
            if !state.statusDirty {
                state.statusDirty = true
                let due = state.statusAt?.addingTimeInterval(1) ?? now
                wanted = min(wanted ?? due, due)
            }
            if let wanted, state.armedWake.map({ wanted < $0 }) ?? true { signal.insert(.reschedule) }
            return signal
        }
    }

    /// The loop's own decision: `decide` runs on the engine; its actions join the queue behind earlier ones.
    package func decide(_ decide: (inout AlertEngine) -> [EngineAction]) {
        state.withLock { state in
            let actions = decide(&state.engine)
            if !actions.isEmpty { state.decided.append(.actions(actions)) }
            state.statusDirty = true
        }
    }

    /// HA: queues the start of leadership, then what adopting the stored states decides.
    package func lead(epoch: Int64, adopting decide: (inout AlertEngine) -> [EngineAction]) {
        state.withLock { state in
            state.decided.append(.lead(epoch: epoch))
            let actions = decide(&state.engine)
            if !actions.isEmpty { state.decided.append(.actions(actions)) }
            state.statusDirty = true
        }
    }

    /// The stream quotes decided since the last call, per exchange, and when the last of them was.
    package func takeDecidedCounts() -> (counts: [(exchange: ExchangeID, quotes: Int)], at: Date?) {
        state.withLock { state in
            guard !state.uncounted.isEmpty else { return ([], nil) }
            defer { state.uncounted.removeAll(keepingCapacity: true) }
            return (state.uncounted, state.lastDecidedAt)
        }
    }

    /// Everything decided and not yet taken, oldest first.
    package func takeDecided() -> [Decided] {
        state.withLock { state in
            defer { state.decided.removeAll() }
            return state.decided
        }
    }

    /// A read of the engine as it stands: a snapshot. The lock is held only to copy the engine (a value whose
    /// storage is shared copy-on-write, so the copy is a handful of retains); `body` runs on the copy outside
    /// the lock, so a reader (the API, `/metrics`, the status page, HA) never holds up a decision, however
    /// long it takes. A decision taken while a reader still holds its copy pays that copy-on-write once.
    package func read<T>(_ body: (AlertEngine) -> T) -> T {
        let snapshot = state.withLock { $0.engine }
        return body(snapshot)
    }

    /// The loop's timer, worked out under the lock (so a decision taken meanwhile compares against the
    /// timer as it will be): the earliest of the engine's next deadline, the status refresh and `extra`.
    /// A wake that only moved later keeps the armed timer (it fires early, finds nothing due and re-arms):
    /// replacing the timer whenever the deadline moved cost a task per stream quote. Returns whether the
    /// timer must be replaced, and by what (nil: none).
    package func rearm(now: Date, extra: Date?) -> (replace: Bool, wake: Date?) {
        state.withLock { state in
            var wake = state.engine.nextDeadline(after: now)
            if let due = extra { wake = min(wake ?? due, due) }
            if state.statusDirty, let at = state.statusAt {
                let due = at.addingTimeInterval(1)
                wake = min(wake ?? due, due)
            }
            guard wake != state.armedWake else { return (false, wake) }
            if let wake, let armed = state.armedWake, armed < wake { return (false, armed) }
            state.armedWake = wake
            return (true, wake)
        }
    }

    /// The timer fired: none is armed until the next `rearm`.
    package func timerFired() { state.withLock { $0.armedWake = nil } }

    /// Inputs of the loop changed something the status line may show.
    package func markChanged() { state.withLock { $0.statusDirty = true } }

    /// The status line when it is due at `now` (inputs changed something and a second has passed since the
    /// last), marking it refreshed; nil otherwise.
    package func statusLineIfDue(now: Date) -> String? {
        state.withLock { state in
            guard state.statusDirty else { return nil }
            if let at = state.statusAt, now.timeIntervalSince(at) < 1 { return nil }
            state.statusDirty = false
            state.statusAt = now
            return state.engine.statusLine(now: now)
        }
    }

    /// The status line was set at `now` by an action (not by a refresh).
    package func statusSet(at now: Date) { state.withLock { $0.statusAt = now } }

    /// The loop's timer: when it wakes next (nil: none armed).
    package var armedWake: Date? { state.withLock { $0.armedWake } }
}
