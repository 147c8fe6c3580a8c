import Foundation
import Logging
import MarketAlertCore
import MarketAlertIO

/// The daemon's runtime (producers → engine → publisher → sinks) in virtual time. Every step waits until the
/// producers are asleep on the clock, the engine has handled every event they sent, and its deadline timer
/// (if armed) is asleep too; only then does the test look or move time. Nothing really sleeps.
package final class RuntimeHarness: Sendable {
    package let clock: ManualClock
    package let runtime: DaemonRuntime
    package let sink: RecordingSink
    package let lifecycle: RecordingLifecycle
    /// How many producers sleep between their polls.
    package let producers: Int
    private let task: Task<Void, Never>

    /// Starts the runtime and settles it (its first polls done).
    package static func start(
        settings: Settings, store: (any AlertStore)?, factory: ProducerFactory, clock: ManualClock, producers: Int,
        sink: RecordingSink = RecordingSink(), lifecycle: RecordingLifecycle = RecordingLifecycle(), ids: (@Sendable () -> String)? = nil,
        prepare: @Sendable (DaemonRuntime) async -> Void = { _ in }
    ) async -> RuntimeHarness {
        let runtime = await DaemonRuntime.make(
            settings: settings, store: store, sinks: [sink], factory: factory, clock: clock, lifecycle: lifecycle,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }), makeID: ids ?? EventID.make)
        await prepare(runtime)  // observers attach before the runtime runs
        let harness = RuntimeHarness(clock: clock, runtime: runtime, sink: sink, lifecycle: lifecycle, producers: producers)
        await harness.settle()
        return harness
    }

    private init(clock: ManualClock, runtime: DaemonRuntime, sink: RecordingSink, lifecycle: RecordingLifecycle, producers: Int) {
        self.clock = clock
        self.runtime = runtime
        self.sink = sink
        self.lifecycle = lifecycle
        self.producers = producers
        task = Task { try? await runtime.run() }
    }

    /// Waits until producers, engine and timer are all at rest.
    package func settle(producers expected: Int? = nil) async {
        let expected = expected ?? producers
        while true {
            await clock.waitForSleepers(expected)
            let idle = await runtime.loop.idleState
            guard idle.caughtUp else {
                await Task.yield()
                continue
            }
            if idle.timerArmed { await clock.waitForSleepers(expected + 1) }
            let again = await runtime.loop.idleState
            if again.caughtUp { return }
        }
    }

    /// Moves virtual time in one-second steps, settling after each.
    package func advance(_ seconds: Int) async {
        for _ in 0..<seconds {
            await clock.advance(by: .seconds(1))
            await settle()
        }
    }

    /// Moves to `target` through every sleeper's deadline on the way, settling after each.
    package func advance(to target: Date) async {
        while let next = clock.pendingDeadlines.first, next <= target {
            await clock.advance(to: next)
            await settle()
        }
        if clock.now() < target {
            await clock.advance(to: target)
            await settle()
        }
    }

    /// A reload with `settings`, settled afterwards (with `producers` sleepers from then on).
    package func reload(_ settings: Settings, producers: Int? = nil) async {
        await runtime.apply(settings)
        await settle(producers: producers)
    }

    package func stop() async {
        task.cancel()
        await task.value
    }
}
