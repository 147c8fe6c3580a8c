import Foundation
import Logging
import MarketAlertCore
import MarketAlertDelivery
import MarketAlertEngineLoop
import MarketAlertIO
import MarketAlertTestSupport
import NIOCore
import NIOPosix
import Synchronization
import Testing

/// The engine loop's deadline timer runs on the data path's thread, as the loop itself does: an unstructured
/// task does not inherit the loop's executor preference, and the timer's task used to start, sleep and wake on
/// Swift's global executor, a thread switch at each re-arm and each firing.
@Suite(.timeLimit(.minutes(1))) struct EngineTimerExecutorTests {
    /// A virtual clock that records, for each engine-deadline sleep, whether it began on `loop`'s thread.
    final class LoopWitnessClock: DaemonClock {
        let base: ManualClock
        let loop: any EventLoop
        let onLoop = Mutex<[Bool]>([])

        init(base: ManualClock, loop: any EventLoop) {
            self.base = base
            self.loop = loop
        }

        func now() -> Date { base.now() }

        func sleep(until deadline: Date, label: ClockLabel) async throws {
            if label == .engineDeadline { onLoop.withLock { $0.append(loop.inEventLoop) } }
            try await base.sleep(until: deadline, label: label)
        }
    }

    @Test func theDeadlineTimerSleepsAndWakesOnTheDataPathsThread() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let executor = DataPathExecutor(loop: group.next())
        let start = Date(timeIntervalSince1970: 1_763_800_000)
        let manual = ManualClock(now: start)
        let clock = LoopWitnessClock(base: manual, loop: executor.loop)
        let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        let settings = try twoExchangeSettings()
        let engine = AlertEngine(settings: settings, now: start, makeID: EventID.make)
        let inbox = EngineInbox()
        let publisher = AlertPublisher(store: nil, sinks: [RecordingSink()], clock: clock, logger: logger)
        let loop = EngineLoop(engine: engine, inbox: inbox, publisher: publisher, clock: clock, logger: logger, timerExecutor: executor)
        let running = Task(executorPreference: executor) { await loop.run() }

        try await manual.waitForSleeper(.engineDeadline)
        let firstWake = try #require(manual.deadlines(of: .engineDeadline).first)
        // The timer fires (the first answers' wait expires) and the loop re-arms it for its next deadline.
        await manual.advance(to: firstWake)
        try await manual.waitUntil("the loop to handle the wake and re-arm") {
            await loop.handled >= 1 && clock.onLoop.withLock { $0.count } >= 2
        }
        inbox.finish()
        _ = await running.value
        let sleeps = clock.onLoop.withLock { $0 }
        #expect(sleeps.count >= 2)
        #expect(sleeps.allSatisfy { $0 }, "engine deadline sleeps on the loop's thread: \(sleeps)")
        try await group.shutdownGracefully()
    }
}
