import Foundation
import MarketAlertCore
import NIOCore

extension SystemClock {
    /// The daemon's wall clock, sleeping on the data path's event loop instead of Swift's global timer.
    ///
    /// `Task.sleep` arms a libdispatch timer: its manager thread wakes to arm it and again to fire it, and then
    /// hands the sleeper to the task's executor, another thread. A polling daemon sleeps about fifteen times a
    /// second (each poll, each request deadline), and those wake-ups and hand-offs were a large part of its CPU
    /// (perf: libdispatch's manager thread 10%, the kernel's task switches 13%). On the loop, a timer is an
    /// entry in the loop's heap, fired in the loop's own wake-up, and the sleeper (a producer or the engine,
    /// whose preferred executor is the same loop, `DataPathExecutor`) resumes on that thread without a switch.
    ///
    /// Sleeps are measured on NIO's uptime clock, which, unlike Swift's continuous clock, does not count a
    /// suspended machine; a server is not suspended.
    package static func onLoop(_ loop: any EventLoop) -> SystemClock {
        SystemClock { try await loop.sleep(for: $0) }
    }
}

extension EventLoop {
    /// Sleeps `duration` on this loop's timer heap; throws `CancellationError` when the task is cancelled
    /// (the timer is cancelled with it, so nothing fires later) or the loop is shutting down.
    package func sleep(for duration: Duration) async throws {
        let (seconds, attoseconds) = duration.components
        let nanoseconds = seconds >= Int64.max / 1_000_000_000 ? Int64.max : max(0, seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        let scheduled = scheduleTask(in: .nanoseconds(nanoseconds)) {}
        do {
            try await withTaskCancellationHandler {
                try await scheduled.futureResult.get()
            } onCancel: {
                scheduled.cancel()
            }
        } catch {
            throw CancellationError()
        }
    }
}
