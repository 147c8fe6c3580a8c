import Foundation
import Logging
import MarketAlertIO
import MarketAlertTestSupport
import Synchronization
import Testing

/// Start-up pages of the executable are given back once start-up is over, and only pages that are exactly
/// the file's bytes.
@Suite struct StartupPagesTests {
    static let smaps = """
        55d0a0000000-55d0a0900000 r--p 00000000 fe:01 1234   /usr/sbin/marketalertd
        Size:               9216 kB
        Rss:                1856 kB
        Anonymous:             0 kB
        Locked:                0 kB
        VmFlags: rd mr mw me sd
        55d0a0900000-55d0a2b00000 r-xp 00900000 fe:01 1234   /usr/sbin/marketalertd
        Size:              34816 kB
        Rss:               22408 kB
        Anonymous:             0 kB
        Locked:                0 kB
        VmFlags: rd ex mr mw me sd
        55d0a2b00000-55d0a2c60000 r--p 02b00000 fe:01 1234   /usr/sbin/marketalertd
        Rss:                1412 kB
        Anonymous:          1412 kB
        Locked:                0 kB
        55d0a2c60000-55d0a5200000 rw-p 02c60000 fe:01 1234   /usr/sbin/marketalertd
        Rss:                4260 kB
        Anonymous:           496 kB
        7f00c3c44000-7f00c3d9a000 r-xp 00028000 fe:01 99     /usr/lib/x86_64-linux-gnu/libc.so.6
        Rss:                1136 kB
        Anonymous:             0 kB
        7f00c4000000-7f00c4100000 r-xp 00000000 fe:01 77     /opt/old/marketalertd (deleted)
        Rss:                 100 kB
        Anonymous:             0 kB
        7ffd1a000000-7ffd1a021000 rw-p 00000000 00:00 0      [stack]
        Rss:                  40 kB
        Anonymous:            40 kB
        """

    @Test func parsesEveryMappingWithItsCounts() {
        let regions = StartupPages.regions(smaps: Self.smaps)
        #expect(regions.count == 7)
        #expect(regions[1] == StartupPages.Region(
            start: 0x55d0_a090_0000, end: 0x55d0_a2b0_0000, writable: false, path: "/usr/sbin/marketalertd", residentKB: 22408, anonymousKB: 0))
        #expect(regions[3].writable)
        #expect(regions[6].path == "[stack]")
    }

    /// Code and read-only data of this executable only: not the relocated RELRO region (private pages),
    /// not writable data, not other files, not a replaced executable.
    @Test func onlyTheExecutablesPureFileRegionsAreReleasable() {
        let releasable = StartupPages.releasable(StartupPages.regions(smaps: Self.smaps), executable: "/usr/sbin/marketalertd")
        #expect(releasable.map(\.residentKB) == [1856, 22408])
        #expect(releasable.allSatisfy { !$0.writable && $0.anonymousKB == 0 })
    }

    /// For real, on this test process: its code pages leave the resident set, and it goes on running
    /// (every page used again comes back from the page cache).
    @Test func releasingShrinksThisProcessAndItKeepsRunning() throws {
        let before = try Self.residentFileKB()
        let released = StartupPages.release()
        let after = try Self.residentFileKB()
        #expect(released > 1 << 20, "released \(released) bytes")
        #expect(after < before, "RssFile \(before) kB → \(after) kB")
        // Code released a moment ago runs again.
        #expect(StartupPages.regions(smaps: Self.smaps).count == 7)
        #expect(try JSONSerialization.jsonObject(with: Data(#"{"a":[1,2]}"#.utf8)) is [String: Any])
    }

    /// The service waits out start-up on the injected clock, releases once, and a stop before that
    /// releases nothing.
    @Test func theServiceReleasesOnceAfterStartUp() async throws {
        let start = Date(timeIntervalSince1970: 1_750_000_000)
        let clock = ManualClock(now: start)
        let calls = Mutex(0)
        let (released, signal) = AsyncStream.makeStream(of: Void.self)
        let service = StartupPageRelease(
            clock: clock, delay: .seconds(15), logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
            release: {
                calls.withLock { $0 += 1 }
                signal.yield()
                return 0
            })
        let task = Task { try await service.run() }
        try await clock.waitForSleeper(.startupPages, at: start.addingTimeInterval(15))
        await clock.advance(by: .seconds(14))
        #expect(calls.withLock { $0 } == 0)
        #expect(clock.pendingDeadlines == [start.addingTimeInterval(15)])  // still waiting out start-up
        await clock.advance(by: .seconds(1))
        var releases = released.makeAsyncIterator()
        _ = await releases.next()
        #expect(calls.withLock { $0 } == 1)
        task.cancel()
        try? await task.value

        let early = Task { try await service.run() }
        try await clock.waitForSleeper(.startupPages, at: clock.now().addingTimeInterval(15))
        early.cancel()
        try? await early.value
        #expect(calls.withLock { $0 } == 1)
    }

    static func residentFileKB() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("RssFile:") }),
              let value = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { throw CocoaError(.fileReadCorruptFile) }
        return value
    }
}
