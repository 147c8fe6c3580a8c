import Foundation
import Synchronization

/// Writes records (stdout lines, log lines, journal entries) so that no caller ever waits for a slow or stuck
/// destination: a pipe nobody reads, a stalled journald, a terminal paused with ^S.
///
/// `submit` never blocks. It writes at once when the destination can take the record without blocking and
/// nothing is queued before it (`direct`), and otherwise queues the record for this writer's own thread,
/// which performs the blocking `write`. At most `capacity` records wait; past that `submit` refuses (the
/// caller keeps the record, counts or retries it). A failed write keeps the record at the head of the queue
/// and is tried again after a backoff (`retryDelay`, doubling up to `maximumRetryDelay`), so one failure
/// never waits for the next submission; after `maximumAttempts` failed writes the record is given up.
/// Every queued record's fate is reported: written, a first failure, given up.
package final class BackgroundWriter<Record: Sendable>: Sendable {
    /// What `submit` did with a record.
    package enum Submission: Sendable, Equatable {
        /// Written before `submit` returned.
        case written
        /// Queued for the writer's thread; its outcome comes through `report`.
        case queued
        /// The direct write failed (e.g. `ENOSPC`, `EPIPE`); nothing was queued.
        case failed(String)
        /// `capacity` records already wait; nothing was queued.
        case refused
    }

    /// What became of a queued record.
    package enum Report: Sendable {
        case written(Record)
        /// The record's first failed write; it stays queued and is tried again.
        case failed(Record, String)
        /// `maximumAttempts` writes failed; the record is dropped.
        case gaveUp(Record, String)
    }

    package struct Policy: Sendable {
        package var capacity: Int
        package var retryDelay: Duration
        package var maximumRetryDelay: Duration
        /// nil: never give a record up.
        package var maximumAttempts: Int?

        package init(capacity: Int, retryDelay: Duration = .milliseconds(500), maximumRetryDelay: Duration = .seconds(30), maximumAttempts: Int? = nil) {
            self.capacity = capacity
            self.retryDelay = retryDelay
            self.maximumRetryDelay = maximumRetryDelay
            self.maximumAttempts = maximumAttempts
        }
    }

    private struct State {
        var queue: [Record] = []
        /// The thread is writing the head of `queue` (outside the lock).
        var writing = false
        var threadStarted = false
        var refused = 0
    }

    package let name: String
    private let policy: Policy
    private let direct: (@Sendable (Record) -> DirectWrite)?
    private let write: @Sendable (Record) -> String?
    private let report: @Sendable (Report) -> Void
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)

    /// - Parameters:
    ///   - direct: a write that never blocks (nil: every record goes through the thread).
    ///   - write: the blocking write; nil on success, otherwise why it failed.
    ///   - report: outcomes of queued records, called on the writer's thread.
    package init(
        name: String, policy: Policy, direct: (@Sendable (Record) -> DirectWrite)? = nil,
        write: @escaping @Sendable (Record) -> String?, report: @escaping @Sendable (Report) -> Void = { _ in }
    ) {
        self.name = name
        self.policy = policy
        self.direct = direct
        self.write = write
        self.report = report
    }

    /// Records refused because the queue was full, since start.
    package var refusedCount: Int { state.withLock { $0.refused } }

    /// Records waiting (including one being written).
    package var queuedCount: Int { state.withLock { $0.queue.count } }

    package func submit(_ record: Record) -> Submission {
        let (submission, startThread) = state.withLock { state -> (Submission, Bool) in
            if state.queue.isEmpty, !state.writing, let direct {
                // Under the lock, so a record written directly never overtakes one queued before it.
                switch direct(record) {
                case .written: return (.written, false)
                case .failed(let reason): return (.failed(reason), false)
                case .wouldBlock: break
                }
            }
            guard state.queue.count < policy.capacity else {
                state.refused += 1
                return (.refused, false)
            }
            state.queue.append(record)
            let start = !state.threadStarted
            state.threadStarted = true
            return (.queued, start)
        }
        if startThread {
            let thread = Thread { [self] in drainForever() }
            thread.name = "marketalertd-\(name)"
            thread.start()
        }
        if submission == .queued { wake.signal() }
        return submission
    }

    /// Waits (blocking the calling thread) until the queue is empty or `timeout` passes; true when empty.
    /// For the process's last moments, after the service group stopped.
    @discardableResult
    package func flush(timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if state.withLock({ $0.queue.isEmpty && !$0.writing }) { return true }
            Thread.sleep(forTimeInterval: 0.005)
        }
        return state.withLock { $0.queue.isEmpty && !$0.writing }
    }

    /// The writer thread: takes the head of the queue, writes it, retries it with backoff when it fails.
    private func drainForever() {
        while true {
            wake.wait()
            drainQueue()
        }
    }

    private func drainQueue() {
        var attempts = 0
        while let record = takeHead() {
            if let reason = write(record) {
                attempts += 1
                if let maximum = policy.maximumAttempts, attempts >= maximum {
                    popHead()
                    attempts = 0
                    report(.gaveUp(record, reason))
                    continue
                }
                if attempts == 1 { report(.failed(record, reason)) }
                state.withLock { $0.writing = false }
                Thread.sleep(forTimeInterval: Self.backoff(attempt: attempts, policy: policy).seconds)
                continue
            }
            attempts = 0
            popHead()
            report(.written(record))
        }
    }

    private func takeHead() -> Record? {
        state.withLock { state -> Record? in
            guard let head = state.queue.first else {
                state.writing = false
                return nil
            }
            state.writing = true
            return head
        }
    }

    private func popHead() {
        state.withLock { state in
            if !state.queue.isEmpty { state.queue.removeFirst() }
            state.writing = false
        }
    }

    /// `retryDelay` after the first failure, doubling with each further one, at most `maximumRetryDelay`.
    package static func backoff(attempt: Int, policy: Policy) -> Duration {
        let doublings = min(max(attempt - 1, 0), 16)
        return min(policy.retryDelay * (1 << doublings), policy.maximumRetryDelay)
    }
}

/// A write that must not block: written, failed, or not possible right now without blocking.
package enum DirectWrite: Sendable, Equatable {
    case written
    case failed(String)
    case wouldBlock
}
