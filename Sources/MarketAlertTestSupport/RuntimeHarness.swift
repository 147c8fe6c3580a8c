import Foundation
import Logging
import MarketAlertCore
import MarketAlertIO

/// The daemon's runtime (producers → engine → publisher → sinks) in virtual time. Every step waits until the
/// producers are asleep on the clock, the engine has handled every event they sent, and its deadline timer
/// (if armed) is asleep too; only then does the test look or move time. Nothing really sleeps.
package final class RuntimeHarness: Sendable {
    package let clock: ManualClock
    package let runtime: DataPathService
    package let sink: RecordingSink
    package let lifecycle: RecordingLifecycle
    /// How many producers sleep between their polls.
    package let producers: Int
    private let task: Task<Void, Never>

    /// Starts the runtime and settles it (its first polls done).
    package static func start(
        settings: Settings, store: (any AlertStore)?, factory: ProducerFactory, clock: ManualClock, producers: Int,
        sink: RecordingSink = RecordingSink(), lifecycle: RecordingLifecycle = RecordingLifecycle(), ids: (@Sendable () -> String)? = nil,
        leadership: LeadershipEvents? = nil, prepare: @Sendable (DataPathService) async -> Void = { _ in }
    ) async -> RuntimeHarness {
        let runtime = await DataPathService.make(
            settings: settings, store: store, sinks: [sink], factory: factory, clock: clock, lifecycle: lifecycle,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }), makeID: ids ?? EventID.make,
            leadership: leadership)
        await prepare(runtime)  // observers attach before the runtime runs
        let harness = RuntimeHarness(clock: clock, runtime: runtime, sink: sink, lifecycle: lifecycle, producers: producers)
        await harness.settle()
        return harness
    }

    private init(clock: ManualClock, runtime: DataPathService, sink: RecordingSink, lifecycle: RecordingLifecycle, producers: Int) {
        self.clock = clock
        self.runtime = runtime
        self.sink = sink
        self.lifecycle = lifecycle
        self.producers = producers
        task = Task { try? await runtime.run() }
    }

    /// Waits until producers, engine and timer are all at rest: the engine has handled every input, its
    /// deadline timer (if armed) sleeps on the clock, and so do `producers` more tasks.
    package func settle(producers expected: Int? = nil) async {
        let expected = expected ?? producers
        while true {
            var idle = await runtime.loop.idleState
            while !idle.caughtUp {
                await Task.yield()
                idle = await runtime.loop.idleState
            }
            // The timer task registers its sleep a moment after the loop arms it: wait until it has.
            let timer = idle.wake.map { $0 > clock.now() } ?? false
            if timer, let wake = idle.wake {
                while !clock.pendingDeadlines.contains(wake) {
                    await Task.yield()
                    if await runtime.loop.idleState.wake != wake { break }
                }
            }
            await clock.waitForSleepers(expected + (timer ? 1 : 0))
            let again = await runtime.loop.idleState
            if again.caughtUp && again.wake == idle.wake { return }
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
