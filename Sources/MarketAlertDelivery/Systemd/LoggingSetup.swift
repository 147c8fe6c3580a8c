import Foundation
import Logging
import MarketAlertKit
import MarketAlertStorage

#if canImport(Glibc)
import Glibc
#endif

/// Chooses the process's one log handler at startup (never both: under systemd, stderr already goes to the
/// journal, so a second handler would log every line twice).
package enum LoggingSetup {
    /// Where log lines go.
    package enum Destination: Sendable, Equatable {
        /// Native journal entries (``JournalLogHandler``).
        case journal
        /// One text line per event on stderr (``StderrLogHandler``).
        case stderr
    }

    /// Bootstraps swift-log once for the process.
    ///
    /// - Important: `LoggingSystem.bootstrap` traps when called twice; call this once, first thing in `main`.
    /// - Returns: the destination chosen, so the caller can log it.
    @discardableResult
    package static func bootstrap(
        level: Logger.Level, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Destination {
        let destination = destination(environment: environment)
        // Log lines still queued behind a blocked stderr or journald are written before the process exits.
        atexit { LogWriters.flush() }
        LoggingSystem.bootstrap(
            { label, provider -> any LogHandler in
                switch destination {
                case .journal: JournalLogHandler(label: label, logLevel: level, metadataProvider: provider)
                case .stderr: StderrLogHandler(label: label, logLevel: level, metadataProvider: provider)
                }
            },
            metadataProvider: nil)
        return destination
    }

    /// `.journal` when `$JOURNAL_STREAM` names the very file stderr is open on (systemd sets it for units
    /// whose stdout/stderr go to the journal; a child that inherits the variable but has its stderr
    /// redirected elsewhere does not match), `.stderr` otherwise.
    package static func destination(environment: [String: String]) -> Destination {
        guard let stream = environment["JOURNAL_STREAM"], let identity = fileIdentity(of: STDERR_FILENO) else {
            return .stderr
        }
        return journalStream(stream, matches: identity) ? .journal : .stderr
    }

    /// Device and inode of an open file descriptor (`fstat(2)`), or nil if it is not open.
    /// Whether stdout goes to the journal (systemd's `StandardOutput=journal`): then the stdout alert sink
    /// would put a second, plain copy of every native journal entry into the same journal.
    package static func stdoutIsJournal(environment: [String: String]) -> Bool {
        guard let stream = environment["JOURNAL_STREAM"], let identity = fileIdentity(of: STDOUT_FILENO) else { return false }
        return journalStream(stream, matches: identity)
    }

    package static func fileIdentity(of descriptor: Int32) -> (device: UInt64, inode: UInt64)? {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        return (UInt64(info.st_dev), UInt64(info.st_ino))
    }

    /// Whether `JOURNAL_STREAM` (`<device>:<inode>`, both decimal) names `identity`.
    package static func journalStream(_ value: String, matches identity: (device: UInt64, inode: UInt64)) -> Bool {
        let parts = value.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        return device == identity.device && inode == identity.inode
    }
}
