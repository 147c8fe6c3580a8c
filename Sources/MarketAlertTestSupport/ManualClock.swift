import Foundation
import MarketAlertCore
import MarketAlertIO
import Synchronization

/// Virtual time for tests: `now()` moves only when the test calls `advance`, and sleepers wake exactly at
/// their deadlines, in deadline order. Every sleeper carries its `ClockLabel`, and the tests' handshake is a
/// named wait: `waitForSleeper(.engineDeadline, at: wake)`, `waitUntil("…") { sleeping in … }`. It returns
/// once the code under test has gone to sleep for that reason, so an `advance` cannot race it; it never counts
/// sleepers (a count is met as well by a sleeper nobody meant). Every wait has a real-time deadline and
/// throws `ClockWaitTimeout`, naming what it waited for and what was asleep, when it passes.
package final class ManualClock: DaemonClock {
    /// A task asleep on the clock.
    package struct Sleeping: Sendable, CustomStringConvertible {
        package var label: ClockLabel
        package var deadline: Date
        package var description: String { "\(label) until \(Timestamp.rfc3339(deadline))" }
    }

    private struct Sleeper {
        var id: UInt64
        var label: ClockLabel
        var deadline: Date
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Date
        var nextID: UInt64 = 0
        var sleepers: [Sleeper] = []
        /// Bumped at every change of `sleepers` or `now`.
        var version: UInt64 = 0
        /// Tasks waiting for the next change (`waitForChange`).
        var watchers: [(id: UInt64, signal: OneShot<Void>)] = []
    }

    private let state: Mutex<State>

    package init(now: Date) { state = Mutex(State(now: now)) }

    package func now() -> Date { state.withLock { $0.now } }

    /// Deadlines of the tasks sleeping now, earliest first.
    package var pendingDeadlines: [Date] { state.withLock { $0.sleepers.map(\.deadline).sorted() } }

    /// The tasks sleeping now, earliest deadline first.
    package var sleeping: [Sleeping] {
        state.withLock { $0.sleepers.map { Sleeping(label: $0.label, deadline: $0.deadline) } }.sorted { $0.deadline < $1.deadline }
    }

    /// Deadlines of the tasks sleeping now with `label`, earliest first.
    package func deadlines(of label: ClockLabel) -> [Date] { sleeping.filter { $0.label == label }.map(\.deadline) }

    package func sleep(until deadline: Date, label: ClockLabel) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (resumeNow, watchers) = state.withLock { state -> (Bool, [OneShot<Void>]) in
                    if Task.isCancelled { return (true, []) }
                    if deadline <= state.now { return (true, []) }
                    state.sleepers.append(Sleeper(id: id, label: label, deadline: deadline, continuation: continuation))
                    return (false, Self.changed(&state))
                }
                for watcher in watchers { watcher.fire(()) }
                if resumeNow {
                    if Task.isCancelled { continuation.resume(throwing: CancellationError()) } else { continuation.resume() }
                }
            }
        } onCancel: {
            let (cancelled, watchers) = state.withLock { state -> (Sleeper?, [OneShot<Void>]) in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return (nil, []) }
                let sleeper = state.sleepers.remove(at: index)
                return (sleeper, Self.changed(&state))
            }
            for watcher in watchers { watcher.fire(()) }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Records a change and hands back the watchers to tell (outside the lock).
    private static func changed(_ state: inout State) -> [OneShot<Void>] {
        state.version &+= 1
        defer { state.watchers.removeAll() }
        return state.watchers.map(\.signal)
    }

    /// Waits until a task sleeps on the clock with `label` and a deadline of exactly `at` (any deadline when
    /// nil). Throws `ClockWaitTimeout` after `timeout` of real time.
    package func waitForSleeper(
        _ label: ClockLabel, at deadline: Date? = nil, timeout: Duration = .seconds(30),
        fileID: StaticString = #fileID, line: UInt = #line
    ) async throws {
        let what = deadline.map { "\(label) asleep until \(Timestamp.rfc3339($0))" } ?? "\(label) asleep"
        try await waitUntil(what, timeout: timeout, fileID: fileID, line: line) { sleeping in
            sleeping.contains { $0.label == label && (deadline == nil || $0.deadline == deadline) }
        }
    }

    /// Waits until `condition` holds over the tasks asleep on the clock, checked at once and at every change
    /// (a sleep registered, woken or cancelled). Throws `ClockWaitTimeout` naming `what` after `timeout` of
    /// real time.
    package func waitUntil(
        _ what: @autoclosure () -> String, timeout: Duration = .seconds(30), fileID: StaticString = #fileID, line: UInt = #line,
        _ condition: ([Sleeping]) -> Bool
    ) async throws {
        try await waitUntil(what(), timeout: timeout, fileID: fileID, line: line) { () async -> Bool in condition(sleeping) }
    }

    /// Waits until `condition` holds. It is checked at once, again at every change of the clock's sleepers,
    /// and (for what the clock does not see: an actor catching up, a socket) at least every few
    /// milliseconds. Throws `ClockWaitTimeout` naming `what` and the sleepers after `timeout` of real time.
    package func waitUntil(
        _ what: @autoclosure () -> String, timeout: Duration = .seconds(30), fileID: StaticString = #fileID, line: UInt = #line,
        _ condition: () async -> Bool
    ) async throws {
        let real = ContinuousClock()
        let end = real.now.advanced(by: timeout)
        var idleRounds = 0
        while true {
            let version = state.withLock { $0.version }
            if await condition() { return }
            try Task.checkCancellation()
            guard real.now < end else {
                throw ClockWaitTimeout(what: what(), timeout: timeout, now: now(), sleeping: sleeping, fileID: fileID, line: line)
            }
            // A few rounds of yielding first (what we wait for is usually a task switch away), then short naps.
            idleRounds += 1
            if idleRounds < 50 {
                await Task.yield()
            } else {
                await waitForChange(since: version, atMost: .milliseconds(min(idleRounds - 49, 5)))
            }
        }
    }

    /// Returns at the clock's next change after `version` (at once if there has been one), or after `atMost`.
    private func waitForChange(since version: UInt64, atMost: Duration) async {
        let signal = OneShot<Void>()
        let changed = state.withLock { state -> Bool in
            if state.version != version { return true }
            state.nextID += 1
            state.watchers.append((state.nextID, signal))
            return false
        }
        if changed { return }
        _ = await signal.wait(timeout: atMost)
    }

    /// Moves time forward by `duration`, waking every sleeper whose deadline is reached, one at a time in
    /// deadline order (each at its own deadline).
    package func advance(by duration: Duration) async {
        await advance(to: now().addingTimeInterval(duration.seconds))
    }

    package func advance(to target: Date) async {
        while true {
            let (next, watchers) = state.withLock { state -> (Sleeper?, [OneShot<Void>]) in
                guard let index = state.sleepers.indices.min(by: { state.sleepers[$0].deadline < state.sleepers[$1].deadline }),
                      state.sleepers[index].deadline <= target
                else {
                    if state.now < target {
                        state.now = target
                        return (nil, Self.changed(&state))
                    }
                    return (nil, [])
                }
                let sleeper = state.sleepers.remove(at: index)
                if state.now < sleeper.deadline { state.now = sleeper.deadline }
                return (sleeper, Self.changed(&state))
            }
            for watcher in watchers { watcher.fire(()) }
            guard let next else { return }
            next.continuation.resume()
            // Let the woken task run up to its next suspension before waking the next one.
            for _ in 0..<20 { await Task.yield() }
        }
    }
}

/// A named wait on virtual time that did not come true within its real-time deadline: the test is broken
/// (it waited for something the code does not do) or the code stopped. Says what was awaited and what slept.
package struct ClockWaitTimeout: Error, CustomStringConvertible {
    package var what: String
    package var timeout: Duration
    package var now: Date
    package var sleeping: [ManualClock.Sleeping]
    package var fileID: StaticString
    package var line: UInt

    package var description: String {
        let asleep = sleeping.isEmpty ? "nothing" : sleeping.map(\.description).joined(separator: "; ")
        return "\(fileID):\(line): waited \(timeout) (real time) for \(what); virtual time \(Timestamp.rfc3339(now)), asleep: \(asleep)"
    }
}
