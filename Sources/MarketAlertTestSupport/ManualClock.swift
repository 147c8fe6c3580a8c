import Foundation
import MarketAlertIO
import Synchronization

/// Virtual time for tests: `now()` moves only when the test calls `advance`, and sleepers wake exactly at
/// their deadlines, in deadline order. `waitForSleepers` is the handshake that replaces sleeping in tests:
/// it returns once the code under test has gone to sleep, so an `advance` cannot race it.
package final class ManualClock: DaemonClock {
    private struct Sleeper {
        var id: UInt64
        var deadline: Date
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Date
        var nextID: UInt64 = 0
        var sleepers: [Sleeper] = []
        var waiters: [(count: Int, signal: OneShot<Void>)] = []
    }

    private let state: Mutex<State>

    package init(now: Date) { state = Mutex(State(now: now)) }

    package func now() -> Date { state.withLock { $0.now } }

    /// Deadlines of the tasks sleeping now, earliest first.
    package var pendingDeadlines: [Date] { state.withLock { $0.sleepers.map(\.deadline).sorted() } }

    package func sleep(until deadline: Date) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (resumeNow, readyWaiters) = state.withLock { state -> (Bool, [OneShot<Void>]) in
                    if Task.isCancelled { return (true, []) }
                    if deadline <= state.now { return (true, []) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    let count = state.sleepers.count
                    let ready = state.waiters.filter { $0.count <= count }.map(\.signal)
                    state.waiters.removeAll { $0.count <= count }
                    return (false, ready)
                }
                for waiter in readyWaiters { waiter.fire(()) }
                if resumeNow {
                    if Task.isCancelled { continuation.resume(throwing: CancellationError()) } else { continuation.resume() }
                }
            }
        } onCancel: {
            let cancelled = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Suspends until at least `count` tasks are sleeping on this clock. A count that is not reached within
    /// `timeout` of real time is a broken test (too many sleepers expected, or code that stopped): it stops
    /// the run at once, loudly, saying what it waited for and what was sleeping, instead of hanging it.
    package func waitForSleepers(
        _ count: Int = 1, timeout: Duration = .seconds(30), fileID: StaticString = #fileID, line: UInt = #line
    ) async {
        let signal = OneShot<Void>()
        let ready = state.withLock { state -> Bool in
            if state.sleepers.count >= count { return true }
            state.waiters.append((count, signal))
            return false
        }
        if ready { return }
        if await signal.wait(timeout: timeout) != nil { return }
        let sleeping = pendingDeadlines.map { "\($0.timeIntervalSince(now()))s" }
        fatalError("\(fileID):\(line): waited \(timeout) for \(count) sleeper(s) on the ManualClock; \(sleeping.count) sleeping, due in \(sleeping)")
    }

    /// Moves time forward by `duration`, waking every sleeper whose deadline is reached, one at a time in
    /// deadline order (each at its own deadline).
    package func advance(by duration: Duration) async {
        await advance(to: now().addingTimeInterval(duration.seconds))
    }

    package func advance(to target: Date) async {
        while true {
            let next = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.indices.min(by: { state.sleepers[$0].deadline < state.sleepers[$1].deadline }),
                      state.sleepers[index].deadline <= target
                else {
                    if state.now < target { state.now = target }
                    return nil
                }
                let sleeper = state.sleepers.remove(at: index)
                if state.now < sleeper.deadline { state.now = sleeper.deadline }
                return sleeper
            }
            guard let next else { return }
            next.continuation.resume()
            // Let the woken task run up to its next suspension before waking the next one.
            for _ in 0..<20 { await Task.yield() }
        }
    }
}
