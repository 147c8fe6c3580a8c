import Foundation

/// What a finished command printed and how it ended.
package struct CommandResult: Sendable, CustomStringConvertible {
    package var status: Int32
    package var stdout: String
    package var stderr: String

    package var succeeded: Bool { status == 0 }
    package var trimmed: String { stdout.trimmingCharacters(in: .whitespacesAndNewlines) }
    package var description: String { "exit \(status)\nstdout: \(stdout)\nstderr: \(stderr)" }
}

package struct CommandFailed: Error, CustomStringConvertible {
    package var command: [String]
    package var result: CommandResult
    package var description: String { "\(command.joined(separator: " ")) failed: \(result)" }

    package init(command: [String], result: CommandResult) {
        self.command = command
        self.result = result
    }
}

/// Runs external commands without blocking a concurrency thread: output goes to temporary files (no pipe
/// can fill up), and `timeout(1)` bounds every run.
package enum CommandRunner {
    package static func run(_ command: [String], stdin: Data? = nil, timeoutSeconds: Int = 120) async throws -> CommandResult {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("marketalertd-cmd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let outURL = directory.appendingPathComponent("stdout")
        let errURL = directory.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        defer {
            try? out.close()
            try? err.close()
        }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        process.arguments = ["--kill-after=5", String(timeoutSeconds)] + command
        if let stdin {
            let inURL = directory.appendingPathComponent("stdin")
            try stdin.write(to: inURL)
            process.standardInput = try FileHandle(forReadingFrom: inURL)
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        process.standardOutput = out
        process.standardError = err
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { finished in continuation.resume(returning: finished.terminationStatus) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        return CommandResult(
            status: status,
            stdout: String(decoding: (try? Data(contentsOf: outURL)) ?? Data(), as: UTF8.self),
            stderr: String(decoding: (try? Data(contentsOf: errURL)) ?? Data(), as: UTF8.self))
    }

    /// Like `run`, but throws unless the command exits 0.
    @discardableResult
    package static func check(_ command: [String], timeoutSeconds: Int = 120) async throws -> CommandResult {
        let result = try await run(command, timeoutSeconds: timeoutSeconds)
        guard result.succeeded else { throw CommandFailed(command: command, result: result) }
        return result
    }

    /// Synchronous variant for trait conditions, which are evaluated before any test runs (never from a test
    /// body: it blocks its thread until the command ends).
    package static func runBlocking(_ command: [String]) -> CommandResult? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        process.arguments = ["--kill-after=5", "60"] + command
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CommandResult(status: process.terminationStatus, stdout: String(decoding: data, as: UTF8.self), stderr: "")
    }
}
