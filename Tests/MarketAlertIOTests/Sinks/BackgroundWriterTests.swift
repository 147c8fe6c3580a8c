import Foundation
import Logging
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Synchronization
import Testing

/// `BackgroundWriter` against real pipes: a caller never waits for a blocked descriptor, queued records are
/// written in order once it drains, a failed write is retried on the writer's own thread with backoff, and a
/// full queue refuses instead of growing.
@Suite(.timeLimit(.minutes(1))) struct BackgroundWriterTests {
    /// A pipe filled to its capacity: the next write to it blocks until someone reads.
    static func fullPipe() throws -> Pipe {
        let pipe = Pipe()
        let capacity = fcntl(pipe.fileHandleForWriting.fileDescriptor, 1032 /* F_GETPIPE_SZ */)
        try pipe.fileHandleForWriting.write(contentsOf: [UInt8](repeating: UInt8(ascii: "x"), count: capacity > 0 ? Int(capacity) : 65_536))
        return pipe
    }

    /// Reads `count` bytes off the pipe on a Dispatch thread (off the concurrency pool).
    static func read(_ pipe: Pipe, count: Int) async throws -> [UInt8] {
        try await BlockingWork.run {
            var bytes: [UInt8] = []
            while bytes.count < count, let chunk = try? pipe.fileHandleForReading.read(upToCount: count - bytes.count), !chunk.isEmpty {
                bytes += chunk
            }
            return bytes
        }
    }

    final class Reports: Sendable {
        let all = Mutex<[String]>([])
        let changed = Mutex<[OneShot<Void>]>([])

        func add(_ text: String) {
            all.withLock { $0.append(text) }
            for waiter in changed.withLock({ list in defer { list = [] }; return list }) { waiter.fire(()) }
        }

        func wait(for count: Int, timeout: Duration = .seconds(5)) async -> [String] {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                let signal = OneShot<Void>()
                changed.withLock { $0.append(signal) }
                if all.withLock({ $0.count }) >= count { break }
                _ = await signal.wait(timeout: .milliseconds(100))
            }
            return all.withLock { $0 }
        }
    }

    @Test func aBlockedPipeQueuesAndTheThreadWritesInOrderOnceItIsRead() async throws {
        let pipe = try Self.fullPipe()
        let descriptor = pipe.fileHandleForWriting.fileDescriptor
        let reports = Reports()
        let writer = BackgroundWriter<[UInt8]>(
            name: "test", policy: .init(capacity: 10),
            direct: { FileDescriptorWrite.direct(descriptor, $0) }, write: { FileDescriptorWrite.blocking(descriptor, $0) },
            report: { report in
                if case .written(let bytes) = report { reports.add(String(decoding: bytes, as: UTF8.self)) }
            })
        // Nobody reads the pipe yet: a submit that waited for it would never return.
        #expect(writer.submit(FileDescriptorWrite.line("one")) == .queued)
        #expect(writer.submit(FileDescriptorWrite.line("two")) == .queued)
        #expect(reports.all.withLock { $0 }.isEmpty)

        let filler = Int(fcntl(descriptor, 1032))
        let read = try await Self.read(pipe, count: max(filler, 65_536) + 8)
        #expect(String(decoding: read.suffix(8), as: UTF8.self) == "one\ntwo\n")
        #expect(await reports.wait(for: 2) == ["one\n", "two\n"])
        // Drained: the next line is written directly again.
        #expect(writer.submit(FileDescriptorWrite.line("three")) == .written)
        #expect(String(decoding: try await Self.read(pipe, count: 6), as: UTF8.self) == "three\n")
    }

    @Test func aFailedWriteIsRetriedWithBackoffOnTheWritersThreadAndReportedOnce() async throws {
        let attempts = Mutex(0)
        let reports = Reports()
        let writer = BackgroundWriter<String>(
            name: "test", policy: .init(capacity: 10, retryDelay: .milliseconds(20), maximumRetryDelay: .milliseconds(40)),
            write: { _ in
                let attempt = attempts.withLock { $0 += 1; return $0 }
                return attempt < 4 ? "No space left on device" : nil
            },
            report: { report in
                switch report {
                case .written(let text): reports.add("written \(text)")
                case .failed(let text, let reason): reports.add("failed \(text): \(reason)")
                case .gaveUp(let text, _): reports.add("gave up \(text)")
                }
            })
        #expect(writer.submit("alert") == .queued)
        #expect(await reports.wait(for: 2) == ["failed alert: No space left on device", "written alert"])
        #expect(attempts.withLock { $0 } == 4)
        #expect(BackgroundWriter<String>.backoff(attempt: 1, policy: .init(capacity: 1)) == .milliseconds(500))
        #expect(BackgroundWriter<String>.backoff(attempt: 3, policy: .init(capacity: 1)) == .seconds(2))
        #expect(BackgroundWriter<String>.backoff(attempt: 30, policy: .init(capacity: 1)) == .seconds(30))
    }

    @Test func aRecordThatFailsTooOftenIsGivenUp() async throws {
        let reports = Reports()
        let writer = BackgroundWriter<String>(
            name: "test", policy: .init(capacity: 10, retryDelay: .milliseconds(5), maximumAttempts: 3),
            write: { _ in "journal socket refused" },
            report: { report in
                switch report {
                case .written(let text): reports.add("written \(text)")
                case .failed(let text, _): reports.add("failed \(text)")
                case .gaveUp(let text, _): reports.add("gave up \(text)")
                }
            })
        #expect(writer.submit("entry") == .queued)
        #expect(await reports.wait(for: 2) == ["failed entry", "gave up entry"])
        #expect(writer.queuedCount == 0)
    }

    @Test func pastItsCapacityTheQueueRefusesAndCounts() async throws {
        let pipe = try Self.fullPipe()
        let descriptor = pipe.fileHandleForWriting.fileDescriptor
        let writer = BackgroundWriter<[UInt8]>(
            name: "test", policy: .init(capacity: 2),
            direct: { FileDescriptorWrite.direct(descriptor, $0) }, write: { FileDescriptorWrite.blocking(descriptor, $0) })
        #expect(writer.submit([1]) == .queued)
        #expect(writer.submit([2]) == .queued)
        #expect(writer.submit([3]) == .refused)
        #expect(writer.refusedCount == 1)
        let filler = Int(fcntl(descriptor, 1032))
        _ = try await Self.read(pipe, count: max(filler, 65_536) + 2)
        #expect(writer.flush(timeout: .seconds(5)))
    }

    @Test func aDescriptorThatFailsAtOnceIsAFailedSubmissionNotAQueuedOne() throws {
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let writer = BackgroundWriter<[UInt8]>(
            name: "test", policy: .init(capacity: 2),
            direct: { FileDescriptorWrite.direct(full.fileDescriptor, $0) }, write: { FileDescriptorWrite.blocking(full.fileDescriptor, $0) })
        guard case .failed(let reason) = writer.submit(FileDescriptorWrite.line("x")) else {
            Issue.record("a write to /dev/full was not a failure")
            return
        }
        #expect(reason.contains("No space"))
    }
}

/// The publisher keeps a notification that stdout could only queue pending in the store until stdout's writer
/// reports it written, and delays nothing meanwhile.
@Suite(.timeLimit(.minutes(1))) struct QueuedStdoutPublisherTests {
    @Test func aQueuedLineStaysPendingUntilItsWriterReportsItWritten() async throws {
        let pipe = try BackgroundWriterTests.fullPipe()
        let reports = SinkWriteReports()
        let writer = StdoutSink.makeWriter(reports: reports, descriptor: pipe.fileHandleForWriting.fileDescriptor)
        let sink = StdoutSink(format: .json, displayTimeZones: ["UTC"], writer: writer)
        let store = try SQLiteStore(inMemory: ())
        let clock = ManualClock(now: StdoutSinkTests().event.at)
        let publisher = AlertPublisher(store: store, sinks: [sink], clock: clock, logger: Logger(label: "test"))
        let event = StdoutSinkTests().event

        // Nobody reads the pipe yet: a publisher that waited for stdout would never return from this.
        await publisher.publish(Publication(events: [event]))
        #expect(try await store.pendingEvents().map(\.id) == [event.id])

        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await publisher.follow(reports.stream) }
            let filler = Int(fcntl(pipe.fileHandleForWriting.fileDescriptor, 1032))
            let line = try event.jsonLine() + "\n"
            let read = try await BackgroundWriterTests.read(pipe, count: max(filler, 65_536) + line.utf8.count)
            #expect(String(decoding: read.suffix(line.utf8.count), as: UTF8.self) == line)
            let deadline = ContinuousClock.now + .seconds(5)
            while try await !store.pendingEvents().isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            #expect(try await store.pendingEvents().isEmpty, "written, but still pending")
            reports.finish()
        }
    }
}
