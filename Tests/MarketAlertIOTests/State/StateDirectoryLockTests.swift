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
        let second = try StateDirectoryLock.acquire(directory: directory)
        #expect(second.path == path)
    }

    @Test func anUncreatableDirectoryIsReportedNotCrashed() {
        #expect(throws: StateDirectoryLock.Failure.self) {
            try StateDirectoryLock.acquire(directory: "/proc/marketalertd-cannot-exist/state")
        }
    }
}
