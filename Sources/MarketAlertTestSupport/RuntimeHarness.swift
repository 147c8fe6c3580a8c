import Foundation
import Logging
import MarketAlertCore
import MarketAlertIO

/// The daemon's runtime (producers → engine → publisher → sinks) in virtual time. Every step waits, by name,
/// until the runtime is at rest: the engine has handled every input sent to it, its deadline timer (if armed)
/// is asleep on the clock at exactly the engine's wake ("engine deadline"), and every running producer is
/// asleep between its polls ("poll binance", … as `ProducerSupervisor` runs them now, reloads included).
/// Only then does the test look or move time. Nothing really sleeps; a step that does not come to rest
/// within 30 s of real time throws, naming what it waited for.
package final class RuntimeHarness: Sendable {
    package let clock: ManualClock
    package let runtime: DataPathService
    package let sink: RecordingSink
    package let lifecycle: RecordingLifecycle
    private let task: Task<Void, Never>

    /// Starts the runtime and settles it (its first polls done).
    package static func start(
        settings: Settings, store: (any AlertStore)?, factory: ProducerFactory, clock: ManualClock,
        sink: RecordingSink = RecordingSink(), lifecycle: RecordingLifecycle = RecordingLifecycle(), ids: (@Sendable () -> String)? = nil,
        leadership: LeadershipEvents? = nil, prepare: @Sendable (DataPathService) async -> Void = { _ in }
    ) async throws -> RuntimeHarness {
        let runtime = await DataPathService.make(
            settings: settings, store: store, sinks: [sink], factory: factory, clock: clock, lifecycle: lifecycle,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }), makeID: ids ?? EventID.make,
            leadership: leadership)
        await prepare(runtime)  // observers attach before the runtime runs
        let harness = RuntimeHarness(clock: clock, runtime: runtime, sink: sink, lifecycle: lifecycle)
        do {
            try await harness.settle()
        } catch {
            await harness.stop()
            throw error
        }
        return harness
    }

    private init(clock: ManualClock, runtime: DataPathService, sink: RecordingSink, lifecycle: RecordingLifecycle) {
        self.clock = clock
        self.runtime = runtime
        self.sink = sink
        self.lifecycle = lifecycle
        task = Task { try? await runtime.run() }
    }

    /// The runtime at rest, as one reading.
    private struct Rest: Equatable {
        var caughtUp: Bool
        var wake: Date?
        var producers: [ClockLabel]
    }

    /// What is missing for the runtime to be at rest; nil when it is.
    private func missing(_ rest: Rest) -> String? {
        guard rest.caughtUp else { return "the engine loop to handle every input sent to it" }
        let now = clock.now()
        let asleep = clock.sleeping
        if let wake = rest.wake {
            // Due: the timer has woken (or is about to) and its wake is on its way to the loop.
            if wake <= now { return "the engine's wake due at \(Timestamp.rfc3339(wake)) to be handled" }
            if !asleep.contains(where: { $0.label == .engineDeadline && $0.deadline == wake }) {
                return "\(ClockLabel.engineDeadline) asleep until \(Timestamp.rfc3339(wake))"
            }
        }
        let awake = rest.producers.filter { label in !asleep.contains { $0.label == label } }
        if !awake.isEmpty { return awake.map { "\($0) asleep" }.joined(separator: ", ") }
        return nil
    }

    private func reading() async -> Rest {
        let idle = await runtime.loop.idleState
        let producers = await runtime.producers.pollLabels.sorted { $0.name < $1.name }
        return Rest(caughtUp: idle.caughtUp, wake: idle.wake, producers: producers)
    }

    /// Waits until producers, engine and timer are all at rest (see the type), and stay so across two
    /// readings of the engine (nothing arrived while the clock was read).
    package func settle(fileID: StaticString = #fileID, line: UInt = #line) async throws {
        var waitingFor = "the runtime at rest"
        try await clock.waitUntil(waitingFor, fileID: fileID, line: line) { () async -> Bool in
            let before = await reading()
            if let missing = missing(before) {
                waitingFor = "the runtime at rest: " + missing
                return false
            }
            return await reading() == before
        }
    }

    /// Moves virtual time in one-second steps, settling after each.
    package func advance(_ seconds: Int, fileID: StaticString = #fileID, line: UInt = #line) async throws {
        for _ in 0..<seconds {
            await clock.advance(by: .seconds(1))
            try await settle(fileID: fileID, line: line)
        }
    }

    /// Moves to `target` through every sleeper's deadline on the way, settling after each.
    package func advance(to target: Date, fileID: StaticString = #fileID, line: UInt = #line) async throws {
        while let next = clock.pendingDeadlines.first, next <= target {
            await clock.advance(to: next)
            try await settle(fileID: fileID, line: line)
        }
        if clock.now() < target {
            await clock.advance(to: target)
            try await settle(fileID: fileID, line: line)
        }
    }

    /// A reload with `settings`, settled afterwards (its producers are those `settings` calls for).
    package func reload(_ settings: Settings, fileID: StaticString = #fileID, line: UInt = #line) async throws {
        await runtime.apply(settings)
        try await settle(fileID: fileID, line: line)
    }

    package func stop() async {
        task.cancel()
        await task.value
    }
}
