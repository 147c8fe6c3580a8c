import Foundation
import MarketAlertKit
import MarketAlertStorage

#if canImport(Glibc)
import Glibc
#endif

/// The process's log writers: a log call (from the data-path thread, the engine, a request handler) never
/// waits for stderr or journald. Lines are written at once when that cannot block, otherwise queued for a
/// writer thread of their own; past `capacity` waiting lines a new one is dropped (each writer's
/// `refusedCount`; not exported as a metric yet). What is queued is written before the process exits
/// (`atexit`, at most 2 s), so a config error logged just before `exit(1)` still reaches the operator.
package enum LogWriters {
    /// Waiting lines at most, per writer.
    package static let capacity = 4_096

    /// stderr lines (``StderrLogHandler``).
    package static let stderr = BackgroundWriter<[UInt8]>(
        name: "stderr-log", policy: .init(capacity: capacity, maximumAttempts: 1),
        direct: { FileDescriptorWrite.direct(STDERR_FILENO, $0) },
        write: { FileDescriptorWrite.blocking(STDERR_FILENO, $0) })

    /// Native journal entries (``JournalLogHandler``): a journald that is slow to read its socket makes
    /// `sd_journal_sendv` block, so every entry goes through the thread.
    package static let journal = BackgroundWriter<[(String, String)]>(
        name: "journal-log", policy: .init(capacity: capacity, maximumAttempts: 1),
        write: { fields in
            let result = Journal.send(fields)
            return result < 0 ? String(cString: strerror(-result)) : nil
        })

    /// Writes what is queued, for at most `timeout` in all; registered with `atexit` by `LoggingSetup`.
    package static func flush(timeout: Duration = .seconds(2)) {
        let deadline = ContinuousClock.now + timeout
        stderr.flush(timeout: max(deadline - ContinuousClock.now, .zero))
        journal.flush(timeout: max(deadline - ContinuousClock.now, .zero))
    }
}
