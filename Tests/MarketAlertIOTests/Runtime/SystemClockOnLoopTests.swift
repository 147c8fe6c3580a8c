import Foundation
import MarketAlertCore
import MarketAlertIO
import NIOCore
import NIOPosix
import Testing

/// The daemon's clock sleeps on the data path's event loop (`SystemClock.onLoop`): it must wake on time, on the
/// loop's thread, stop at once when cancelled, and bound request deadlines.
/// An hour-long sleep that ends proves the cancellation; the time limit turns a broken one into a failure.
@Suite(.timeLimit(.minutes(1))) struct SystemClockOnLoopTests {
    @Test func aSleepEndsAfterItsDurationOnTheLoopsThread() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let clock = SystemClock.onLoop(loop)
        let start = ContinuousClock.now
        try await clock.sleep(for: .milliseconds(30))
        let slept = ContinuousClock.now - start
        #expect(slept >= .milliseconds(30))
        // A task preferring the loop as its executor resumes there.
        let onLoop = try await withTaskExecutorPreference(DataPathExecutor(loop: loop)) {
            try await clock.sleep(for: .milliseconds(1))
            return loop.inEventLoop
        }
        #expect(onLoop)
        try await group.shutdownGracefully()
    }

    @Test func aCancelledSleepThrowsAtOnce() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        // The sleeper runs on the loop: once it has said it started, a job submitted to the loop runs after
        // the sleeper's own job, which armed the timer and suspended, so the cancel finds it asleep.
        let (started, signal) = AsyncStream.makeStream(of: Void.self)
        let sleeper = Task(executorPreference: DataPathExecutor(loop: loop)) {
            signal.yield()
            try await SystemClock.onLoop(loop).sleep(for: .seconds(3600))
        }
        var starts = started.makeAsyncIterator()
        _ = await starts.next()
        try await loop.submit {}.get()
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        // A task cancelled before it sleeps does not sleep at all.
        let cancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await loop.sleep(for: .seconds(3600))
        }
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        try await group.shutdownGracefully()
    }

    @Test func aPastDeadlineDoesNotSleepButStillSeesCancellation() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let clock = SystemClock.onLoop(group.next())
        try await clock.sleep(until: Date().addingTimeInterval(-5), label: .unnamed)
        let cancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(until: Date().addingTimeInterval(-5), label: .unnamed)
        }
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        try await group.shutdownGracefully()
    }

    @Test func aRequestDeadlineOnTheLoopEndsWorkThatTakesTooLong() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let (never, keepOpen) = AsyncStream.makeStream(of: Void.self)
        await #expect(throws: RequestDeadline.Exceeded.self) {
            try await RequestDeadline.run(within: .milliseconds(50), sleep: { try await loop.sleep(for: $0) }) {
                // Work that never finishes: a stream nothing yields to, ended only by the deadline's cancel.
                for await _ in never {}
                withExtendedLifetime(keepOpen) {}
                try Task.checkCancellation()
                return 1
            }
        }
        // Work that finishes first wins, and the deadline's timer is cancelled with its task.
        let value = try await RequestDeadline.run(within: .seconds(3600), sleep: { try await loop.sleep(for: $0) }) { 7 }
        #expect(value == 7)
        try await group.shutdownGracefully()
    }
}
