import Foundation
import Synchronization

/// The built `marketalertd` binary running as a child process, for integration tests: its stdout and stderr
/// are collected line by line, and tests wait for a line (with a deadline) instead of sleeping.
package final class DaemonProcess: Sendable {
    package struct Timeout: Error, CustomStringConvertible {
        package var waitingFor: String
        package var stdout: [String]
        package var stderr: [String]
        package var description: String {
            "timed out waiting for \(waitingFor)\n--- stdout:\n\(stdout.joined(separator: "\n"))\n--- stderr:\n\(stderr.suffix(40).joined(separator: "\n"))"
        }
    }

    private struct Output {
        var stdout: [String] = []
        var stderr: [String] = []
        var partial: [Int: Data] = [:]
        var waiters: [OneShot<Void>] = []
    }

    private let process: Process
    private let output = Mutex(Output())
    /// A stdout pipe that nobody reads (`stdoutFullPipe`): held so the daemon's writes block, not fail.
    private let unreadStdout: Pipe?

    /// The debug binary next to the test bundle (or under `.build/debug`).
    package static var binary: URL {
        let besideTests = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("marketalertd")
        if FileManager.default.isExecutableFile(atPath: besideTests.path) { return besideTests }
        return Fixtures.repositoryRoot.appendingPathComponent(".build/debug/marketalertd")
    }

    package static var binaryExists: Bool { FileManager.default.isExecutableFile(atPath: binary.path) }

    /// - Parameters:
    ///   - stdoutFile: write the daemon's stdout to this file (`/dev/full`, say) instead of a pipe.
    ///   - stdoutFullPipe: give the daemon a stdout pipe that is full and that nobody reads (a stuck consumer):
    ///     its first write to stdout blocks.
    package init(
        arguments: [String], environment: [String: String] = [:], workingDirectory: URL? = nil, stdoutFile: String? = nil,
        stdoutFullPipe: Bool = false
    ) throws {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for key in ["NOTIFY_SOCKET", "JOURNAL_STREAM", "WATCHDOG_USEC", "WATCHDOG_PID", "CREDENTIALS_DIRECTORY", "STATE_DIRECTORY"] {
            env[key] = nil
        }
        env.merge(environment) { $1 }
        process.environment = env
        if let workingDirectory { process.currentDirectoryURL = workingDirectory }
        let stdout = Pipe()
        let stderr = Pipe()
        if stdoutFullPipe {
            let unread = Pipe()
            try Self.fill(unread)
            process.standardOutput = unread
            unreadStdout = unread
        } else if let stdoutFile, let handle = FileHandle(forWritingAtPath: stdoutFile) {
            unreadStdout = nil
            process.standardOutput = handle
        } else {
            unreadStdout = nil
            process.standardOutput = stdout
        }
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        self.process = process
        stdout.fileHandleForReading.readabilityHandler = { [weak self] handle in self?.append(handle.availableData, stream: 1) }
        stderr.fileHandleForReading.readabilityHandler = { [weak self] handle in self?.append(handle.availableData, stream: 2) }
        try process.run()
    }

    /// Writes exactly the pipe's capacity into it (`F_GETPIPE_SZ`), which fills it without blocking.
    private static func fill(_ pipe: Pipe) throws {
        let descriptor = pipe.fileHandleForWriting.fileDescriptor
        let capacity = fcntl(descriptor, 1032 /* F_GETPIPE_SZ */)
        let bytes = [UInt8](repeating: UInt8(ascii: "x"), count: capacity > 0 ? Int(capacity) : 65_536)
        try pipe.fileHandleForWriting.write(contentsOf: bytes)
    }

    package var pid: Int32 { process.processIdentifier }
    package var stdoutLines: [String] { output.withLock { $0.stdout } }
    package var stderrLines: [String] { output.withLock { $0.stderr } }
    package var isRunning: Bool { process.isRunning }

    package func signal(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// Waits until a stdout (or stderr) line satisfies `predicate`, at most `timeout` of wall time.
    @discardableResult
    package func waitForLine(
        _ description: String, stderr: Bool = false, timeout: Duration = .seconds(20), where predicate: @escaping @Sendable (String) -> Bool
    ) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            let lines = stderr ? stderrLines : stdoutLines
            if let line = lines.first(where: predicate) { return line }
            guard ContinuousClock.now < deadline, isRunning || !lines.isEmpty else {
                throw Timeout(waitingFor: description, stdout: stdoutLines, stderr: stderrLines)
            }
            if !isRunning { throw Timeout(waitingFor: description + " (process exited)", stdout: stdoutLines, stderr: stderrLines) }
            await waitForOutput(until: min(deadline, ContinuousClock.now + .milliseconds(100)))
        }
    }

    /// Waits until `condition` holds (checked on every output line and at least every 50 ms), at most
    /// `timeout` of wall time; for conditions outside the process, such as requests a mock server received.
    package func waitUntil(
        _ description: String, timeout: Duration = .seconds(20), _ condition: @Sendable () async throws -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        while !(try await condition()) {
            guard ContinuousClock.now < deadline else {
                throw Timeout(waitingFor: description, stdout: stdoutLines, stderr: stderrLines)
            }
            if !isRunning { throw Timeout(waitingFor: description + " (process exited)", stdout: stdoutLines, stderr: stderrLines) }
            await waitForOutput(until: min(deadline, ContinuousClock.now + .milliseconds(50)))
        }
    }

    /// Waits for the process to exit; returns its status, or nil when it is still running at the deadline.
    package func waitForExit(timeout: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            guard ContinuousClock.now < deadline else { return nil }
            await waitForOutput(until: min(deadline, ContinuousClock.now + .milliseconds(50)))
        }
        return process.terminationStatus
    }

    /// Kills the process (SIGKILL) and reaps it. Called from `defer` in tests, so it cannot await; SIGKILL
    /// ends a process within milliseconds, and the wait is bounded (5 s) so it never holds a thread for long.
    package func terminate() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        let deadline = ContinuousClock.now + .seconds(5)
        while process.isRunning, ContinuousClock.now < deadline { usleep(2_000) }
    }

    private func append(_ data: Data, stream: Int) {
        let waiters = output.withLock { output -> [OneShot<Void>] in
            var buffer = (output.partial[stream] ?? Data()) + data
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                if stream == 1 { output.stdout.append(line) } else { output.stderr.append(line) }
                buffer = Data(buffer[buffer.index(after: newline)...])
            }
            output.partial[stream] = buffer
            defer { output.waiters.removeAll() }
            return output.waiters
        }
        for waiter in waiters { waiter.fire(()) }
    }

    /// Suspends until new output arrives or the deadline passes (whichever is first). Output that arrives
    /// between registering and waiting still wakes it (`OneShot`).
    private func waitForOutput(until deadline: ContinuousClock.Instant) async {
        let signal = OneShot<Void>()
        output.withLock { $0.waiters.append(signal) }
        _ = await signal.wait(timeout: max(.zero, deadline - ContinuousClock.now))
        output.withLock { $0.waiters.removeAll { $0 === signal } }
    }
}
