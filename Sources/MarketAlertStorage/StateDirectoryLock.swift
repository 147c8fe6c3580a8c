import Foundation
import MarketAlertKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One daemon per state directory: an exclusive `flock(2)` on `<state_dir>/marketalertd.lock`, held for the
/// life of the process (the kernel drops it when the process exits, however it exits, so a crash never leaves
/// a stale lock). The holder writes its pid into the file so a second instance can name it.
///
/// Two daemons on one state would each notify every transition under their own ids and both post every
/// webhook outbox row. (A future `ha:` mode, where several instances share state on purpose, skips the lock.)
package final class StateDirectoryLock: Sendable {
    package static let fileName = "marketalertd.lock"

    /// The lock file's path.
    package let path: String
    /// The open descriptor that holds the lock; closed (and the lock released) on deinit.
    private let descriptor: Int32

    package enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// Another process holds the lock; `holderPID` is the pid written in the file, when readable.
        case held(path: String, holderPID: Int32?)
        /// The lock file could not be created, opened or locked (permissions, read-only file system…).
        case unavailable(path: String, reason: String)

        package var description: String {
            switch self {
            case .held(let path, let pid):
                let holder = pid.map { "process \($0)" } ?? "another process"
                return "the state directory is in use: \(path) is locked by \(holder) "
                    + "(another marketalertd runs on this state_dir; stop it, or give this one its own state_dir)"
            case .unavailable(let path, let reason):
                return "cannot lock the state directory with \(path): \(reason)"
            }
        }
    }

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Creates `directory` if needed, then takes the lock without waiting and writes this process's pid.
    package static func acquire(directory: String) throws(Failure) -> StateDirectoryLock {
        let path = URL(fileURLWithPath: directory).appendingPathComponent(fileName).path
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw .unavailable(path: path, reason: "cannot create \(directory): \(error.localizedDescription)")
        }
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .unavailable(path: path, reason: Self.describe(errno)) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            let holder = code == EWOULDBLOCK ? Self.readPID(descriptor) : nil
            close(descriptor)
            if code == EWOULDBLOCK { throw .held(path: path, holderPID: holder) }
            throw .unavailable(path: path, reason: Self.describe(code))
        }
        let pid = Array("\(getpid())\n".utf8)
        // The pid is only informative: a failure to write it does not give the lock up.
        if ftruncate(descriptor, 0) == 0 {
            _ = pid.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        }
        return StateDirectoryLock(path: path, descriptor: descriptor)
    }

    /// The pid the current holder wrote, if the file holds one.
    private static func readPID(_ descriptor: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        let text = String(decoding: buffer.prefix(count), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let pid = Int32(text), pid > 0 else { return nil }
        return pid
    }

    private static func describe(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
