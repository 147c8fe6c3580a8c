import Foundation
import MarketAlertIO
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("systemd notifier")
struct SystemdNotifierTests {
    @Test(
        "status text is one trimmed line",
        arguments: [
            ("7 exchanges ok", "7 exchanges ok"),
            ("  lead and trail  ", "lead and trail"),
            ("ok\nREADY=1", "ok READY=1"),
            ("a\r\n\tb\u{0}c", "a b c"),
            ("\n\n", ""),
            ("김치 프리미엄 3.1%", "김치 프리미엄 3.1%"),
        ])
    func statusText(raw: String, expected: String) {
        #expect(SystemdNotifier.statusText(raw) == expected)
    }

    @Test("long status text is capped on a character boundary")
    func statusCap() {
        let text = SystemdNotifier.statusText(String(repeating: "가", count: 500))  // 3 bytes each
        #expect(text.utf8.count <= SystemdNotifier.maxStatusBytes)
        #expect(text.utf8.count > SystemdNotifier.maxStatusBytes - 3)
        #expect(text.allSatisfy { $0 == "가" })
    }

    @Test("monotonic time moves forward")
    func monotonic() {
        let first = SystemdNotifier.monotonicMicroseconds()
        let second = SystemdNotifier.monotonicMicroseconds()
        #expect(first > 0 && second >= first)
    }

    /// Runs in a child process (an exit test), because `sd_notify` and `sd_watchdog_enabled` read
    /// `NOTIFY_SOCKET`/`WATCHDOG_*` from the environment, and setting variables in the shared test process
    /// would race with other tests.
    @Test("datagrams arrive on a real NOTIFY_SOCKET, and the watchdog interval is half of WATCHDOG_USEC")
    func realSocket() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            exit(NotifySocketCheck.run())
        }
        if let result, result.exitStatus != .exitCode(EXIT_SUCCESS) {
            Issue.record("child stderr: \(String(decoding: result.standardErrorContent, as: UTF8.self))")
        }
    }

    @Test("without a watchdog armed for this process there is no interval")
    func noWatchdogForOtherPID() async {
        await #expect(processExitsWith: .success) {
            setenv("WATCHDOG_USEC", "30000000", 1)
            setenv("WATCHDOG_PID", "1", 1)  // armed for another process
            exit(SystemdNotifier().watchdogInterval == nil ? 0 : 1)
        }
    }
}

/// The body of the exit test: binds a datagram socket, points `NOTIFY_SOCKET` at it, calls every notifier
/// method and compares what arrives. Returns the exit status; reasons for failure go to stderr.
enum NotifySocketCheck {
    static func run() -> Int32 {
        let path = "/tmp/marketalertd-notify-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return fail("socket: errno \(errno)") }
        defer { close(fd); unlink(path) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(path.utf8)
        guard pathBytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return fail("path too long") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in pathBytes.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else { return fail("bind: errno \(errno)") }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))

        setenv("NOTIFY_SOCKET", path, 1)
        setenv("WATCHDOG_USEC", "30000000", 1)
        setenv("WATCHDOG_PID", String(getpid()), 1)
        let notifier = SystemdNotifier()
        guard notifier.watchdogTimeout == .seconds(30) else { return fail("timeout \(String(describing: notifier.watchdogTimeout))") }
        guard notifier.watchdogInterval == .seconds(15) else { return fail("interval \(String(describing: notifier.watchdogInterval))") }

        let before = SystemdNotifier.monotonicMicroseconds()
        notifier.ready()
        notifier.status("7 exchanges ok\nREADY=1")
        notifier.watchdog()
        notifier.reloading()
        notifier.stopping()
        let after = SystemdNotifier.monotonicMicroseconds()

        let expected = ["READY=1", "STATUS=7 exchanges ok READY=1", "WATCHDOG=1", nil, "STOPPING=1"]
        for expectedMessage in expected {
            guard let message = receive(fd) else { return fail("no datagram (errno \(errno))") }
            if let expectedMessage {
                guard message == expectedMessage else { return fail("got \(message.debugDescription), want \(expectedMessage.debugDescription)") }
                continue
            }
            let lines = message.split(separator: "\n").map(String.init)
            guard lines.count == 2, lines[0] == "RELOADING=1", lines[1].hasPrefix("MONOTONIC_USEC="),
                let usec = UInt64(lines[1].dropFirst("MONOTONIC_USEC=".count)), usec >= before, usec <= after
            else { return fail("bad reload message \(message.debugDescription)") }
        }
        return 0
    }

    private static func receive(_ fd: Int32) -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count >= 0 else { return nil }
        return String(decoding: buffer[0..<count], as: UTF8.self)
    }

    private static func fail(_ reason: String) -> Int32 {
        FileHandle.standardError.write(Data("notify check failed: \(reason)\n".utf8))
        return 1
    }
}
