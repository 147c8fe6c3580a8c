import Foundation
import MarketAlertIO
import Testing

/// The lock itself, within one process (flock locks belong to open files, so a second open conflicts).
@Suite struct StateDirectoryLockTests {
    @Test func aSecondAcquireFailsNamingTheHolderUntilTheFirstIsReleased() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lock-\(UUID().uuidString)/state").path
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: directory).deletingLastPathComponent().path) }
        var first: StateDirectoryLock? = try StateDirectoryLock.acquire(directory: directory)
        let path = try #require(first?.path)
        #expect(path == directory + "/marketalertd.lock")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "\(getpid())\n")
        #expect(throws: StateDirectoryLock.Failure.held(path: path, holderPID: getpid())) {
            try StateDirectoryLock.acquire(directory: directory)
        }
        let message = "\(StateDirectoryLock.Failure.held(path: path, holderPID: 4242))"
        #expect(message.contains(path) && message.contains("process 4242"))
        first = nil
        #expect(first == nil)
        // Released at once; but another test of this process may be starting a child at this moment, and a
        // child between fork and exec holds a copy of every descriptor (O_CLOEXEC closes it only at exec),
        // so the lock can linger for that instant under load: ask again for up to 5 s, never more.
        var second: StateDirectoryLock? = try? StateDirectoryLock.acquire(directory: directory)
        for _ in 0..<500 where second == nil {
            usleep(10_000)
            second = try? StateDirectoryLock.acquire(directory: directory)
        }
        #expect(second?.path == path)
    }

    @Test func anUncreatableDirectoryIsReportedNotCrashed() {
        #expect(throws: StateDirectoryLock.Failure.self) {
            try StateDirectoryLock.acquire(directory: "/proc/marketalertd-cannot-exist/state")
        }
    }
}
