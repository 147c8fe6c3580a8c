import NIOCore
import NIOPosix

/// The data path's one thread: a single NIO event loop that owns the stream connections' sockets and, as
/// the task executor preferred by the producers and the engine loop, also runs their tasks.
///
/// A stream frame is read, decoded (`StreamIntake`) and decided (`EngineCore`) on this thread, in the read's
/// own wakeup; only a decision with something to perform goes on to `EngineLoop` (publish), and the stream
/// drivers' and the loop's tasks run here too, so a hop between them is an entry in the loop's task queue,
/// not a thread switch (docs/design-history.md). Blocking work never runs here: the stores (GRDB,
/// postgres-nio), the HTTP client, the sinks' writers and `BlockingWork` run on their own threads, and the
/// evaluation itself is tens of microseconds.
///
/// Actor code (the engine loop, the publisher) keeps its isolation: a default actor runs a task's job on
/// the task's preferred executor, one job at a time as ever.
package final class DataPathExecutor: TaskExecutor {
    /// The daemon's: one loop of the process-wide NIO group, so no extra thread exists for it.
    package static let shared = DataPathExecutor(loop: MultiThreadedEventLoopGroup.singleton.next())

    package let loop: any EventLoop

    package init(loop: any EventLoop) {
        self.loop = loop
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        loop.execute { job.runSynchronously(on: executor) }
    }
}
