import Foundation
import MarketAlertIO
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("Logging setup")
struct LoggingSetupTests {
    @Test("JOURNAL_STREAM must name stderr's device and inode")
    func destinationFollowsStderr() throws {
        let identity = try #require(LoggingSetup.fileIdentity(of: STDERR_FILENO))
        let matching = "\(identity.device):\(identity.inode)"
        #expect(LoggingSetup.destination(environment: ["JOURNAL_STREAM": matching]) == .journal)
        #expect(LoggingSetup.destination(environment: ["JOURNAL_STREAM": "\(identity.device):\(identity.inode &+ 1)"]) == .stderr)
        #expect(LoggingSetup.destination(environment: [:]) == .stderr)
    }

    @Test("a real file's identity matches its own JOURNAL_STREAM value only")
    func fileIdentity() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("journal-stream-\(UUID().uuidString)").path
        let fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        try #require(fd >= 0)
        defer { close(fd); unlink(path) }
        var info = stat()
        try #require(stat(path, &info) == 0)
        let identity = try #require(LoggingSetup.fileIdentity(of: fd))
        #expect(identity.device == UInt64(info.st_dev) && identity.inode == UInt64(info.st_ino))
        #expect(LoggingSetup.journalStream("\(info.st_dev):\(info.st_ino)", matches: identity))
        #expect(LoggingSetup.fileIdentity(of: -1) == nil)
    }

    @Test("malformed JOURNAL_STREAM values never match", arguments: ["", ":", "1:", ":1", "1:2:3", "a:b", "-1:2", " 1:2", "1:2\n"])
    func malformed(value: String) {
        #expect(!LoggingSetup.journalStream(value, matches: (1, 2)))
    }

    @Test("a well-formed value matches exactly")
    func wellFormed() {
        #expect(LoggingSetup.journalStream("64769:123456", matches: (64769, 123456)))
        #expect(!LoggingSetup.journalStream("64769:123456", matches: (64769, 123457)))
    }
}
