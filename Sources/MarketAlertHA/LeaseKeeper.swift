import Foundation
import Logging
import MarketAlertCore
import MarketAlertKit
import MarketAlertStorage
import Synchronization

/// The shell around `LeaderLease`: owns the clock, runs the lease queries the machine asks for against
/// `PostgresStore`, and performs what it decides. On `becomeLeader` it sets the store's fence and tells its
/// owner `.leads(epoch)`; on `stepDown` it clears the fence first (no write of this instance can land after
/// that), logs why, and tells `.standsBy(reason)` (`changes`, in decision order). A refused fenced write, a
/// failed commit or a failed takeover (`LeadershipEvent`, reported on the `LeadershipEvents` it consumes)
/// steps it down too.
///
/// `run()` owns everything it starts, in one task group: the lease loop (wakes at the machine's next deadline
/// or when something changed), the consumer of `LeadershipEvent`s, and the query worker, which runs one lease
/// query at a time with a deadline of the machine's query timeout on the injected clock (an overdue query is
/// cancelled and its connection closed, so a hung database cannot keep a leader from stepping down on time).
package actor LeaseKeeper {
    private enum Query: Sendable {
        case acquire(serial: Int, seconds: TimeInterval)
        case renew(serial: Int, epoch: Int64, seconds: TimeInterval)
    }

    private enum Answer: Sendable {
        case acquire(serial: Int, Result<PostgresStore.LeaseAttempt, any Error>)
        case renew(serial: Int, Result<Bool, any Error>)
    }

    private var lease: LeaderLease
    private let store: PostgresStore
    private let role: HARole
    private let clock: any DaemonClock
    private let logger: Logger
    private let events: LeadershipEvents
    /// What this keeper decided, in order, for its owner; finished when `run()` returns.
    package nonisolated let changes: AsyncStream<LeadershipChange>
    private let changed: AsyncStream<LeadershipChange>.Continuation
    private let queries: (stream: AsyncStream<Query>, continuation: AsyncStream<Query>.Continuation)
    /// Identifies the query in flight; answers to an abandoned one are ignored.
    private var querySerial = 0
    private let wake = WakeSignal()
    private let stopRequested = Mutex(false)
    /// What its loop's sleeps and its queries' deadlines are named on the clock (per instance).
    private let sleepLabel: ClockLabel
    private let queryLabel: ClockLabel
    /// The deadline the loop waits for, from when it starts waiting until something wakes it early (an
    /// answer, an event); nil while it works.
    private var restingUntil: Date?

    package init(store: PostgresStore, lease: Duration, role: HARole, clock: any DaemonClock, logger: Logger, events: LeadershipEvents) {
        self.store = store
        self.lease = LeaderLease(lease: lease.seconds, now: clock.now())
        self.role = role
        self.clock = clock
        self.logger = logger
        self.events = events
        (changes, changed) = AsyncStream.makeStream(of: LeadershipChange.self)
        queries = AsyncStream.makeStream(of: Query.self)
        sleepLabel = .leaseKeeper(store.instance)
        queryLabel = .leaseQuery(store.instance)
    }

    /// Keeps (or seeks) the lease until `stop()` or cancellation; then gives it up so a standby takes over at
    /// once (not when cancelled: the release query would be cancelled too; the lease then expires). Runs once.
    package func run() async {
        store.reportFencing(to: events)
        await withTaskCancellationHandler {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.consumeEvents() }
                group.addTask { await self.runQueries() }
                while !isStopping, !Task.isCancelled {
                    perform(lease.tick(now: clock.now()))
                    await wait(until: lease.nextDeadline)
                }
                queries.continuation.finish()
                group.cancelAll()
            }
        } onCancel: {
            stop()
        }
        await resign()
        changed.finish()
    }

    /// Whether a lease query is out (tests on virtual time wait for its answer before moving time: the
    /// keeper's sleep then is the query's timeout, not rest).
    package var isQuerying: Bool { lease.inFlightSince != nil }

    /// For tests on virtual time: the deadline the loop waits for (asleep on the clock as
    /// `ClockLabel.leaseKeeper(instance)` once the wait has begun; nil while it works), whether a lease
    /// query is out (its deadline asleep as `ClockLabel.leaseQuery(instance)`), and which one (a serial).
    package var rest: (until: Date?, querying: Bool, query: Int) { (restingUntil, isQuerying, querySerial) }

    /// Ends `run()` (a graceful shutdown); returns at once.
    package nonisolated func stop() {
        stopRequested.withLock { $0 = true }
        wake.notify()
    }

    private nonisolated var isStopping: Bool { stopRequested.withLock { $0 } }

    private func consumeEvents() async {
        for await event in events.stream {
            handle(event)
        }
    }

    /// A fenced write refused, a commit or a takeover failed: step down if still leading with that epoch.
    private func handle(_ event: LeadershipEvent) {
        switch event {
        case .fenced(let epoch), .commitFailed(let epoch, _), .takeoverFailed(let epoch):
            guard lease.epoch == epoch else { return }
            perform(lease.fenced(now: clock.now()))
        }
        wakeEarly()
    }

    private func perform(_ actions: [LeaderLease.Action]) {
        for action in actions {
            switch action {
            case .tryAcquire:
                querySerial += 1
                queries.continuation.yield(.acquire(serial: querySerial, seconds: lease.lease))
            case .renew(let epoch):
                querySerial += 1
                queries.continuation.yield(.renew(serial: querySerial, epoch: epoch, seconds: lease.lease))
            case .becomeLeader(let epoch):
                store.setFence(epoch: epoch)
                role.lead(epoch: epoch)
                logger.notice("HA: this instance leads now", metadata: ["epoch": "\(epoch)", "instance": "\(store.instance)"])
                changed.yield(.leads(epoch: epoch))
            case .stepDown(let reason):
                store.setFence(epoch: nil)
                role.standBy()
                logger.warning("HA: stepping down to standby: \(reason)", metadata: ["instance": "\(store.instance)"])
                changed.yield(.standsBy(reason: reason))
            }
        }
    }

    /// The query worker: one query at a time, each with a deadline of the machine's query timeout.
    private func runQueries() async {
        let (store, clock, queryLabel) = (store, clock, queryLabel)
        let timeout = Duration.seconds(lease.queryTimeout)
        for await query in queries.stream {
            let answer: Answer
            switch query {
            case .acquire(let serial, let seconds):
                do { answer = .acquire(serial: serial, .success(try await clock.withDeadline(timeout, label: queryLabel) { try await store.acquireLease(for: seconds) })) } catch {
                    answer = .acquire(serial: serial, .failure(error))
                }
            case .renew(let serial, let epoch, let seconds):
                do {
                    answer = .renew(serial: serial, .success(try await clock.withDeadline(timeout, label: queryLabel) { try await store.renewLease(epoch: epoch, for: seconds) }))
                } catch {
                    answer = .renew(serial: serial, .failure(error))
                }
            }
            answered(answer)
        }
    }

    private func answered(_ answer: Answer) {
        let now = clock.now()
        switch answer {
        case .acquire(let serial, let outcome):
            guard serial == querySerial, lease.inFlightSince != nil else { return }
            switch outcome {
            case .success(.acquired(let epoch)):
                perform(lease.acquired(epoch: epoch, now: now))
            case .success(.held(let holder, let remaining)):
                logger.debug("HA: standby; the lease is held by \(holder) for \(String(format: "%.1f", remaining)) s")
                lease.notAcquired(remaining: remaining, now: now)
            case .failure(let error):
                logger.warning("HA: cannot reach the database to take the lease: \(error)")
                perform(lease.failed(now: now))
            }
        case .renew(let serial, let outcome):
            guard serial == querySerial, lease.inFlightSince != nil else { return }
            switch outcome {
            case .success(true):
                lease.renewed(now: now)
            case .success(false):
                perform(lease.renewRefused(now: now))
            case .failure(let error):
                logger.warning("HA: lease renewal failed: \(error)")
                perform(lease.failed(now: now))
            }
        }
        wakeEarly()
    }

    /// Gives the lease up in the database (best effort) so a standby need not wait for it to expire.
    private func resign() async {
        let epoch = lease.epoch
        perform(lease.resign(now: clock.now()))
        if let epoch {
            do {
                try await store.releaseLease(epoch: epoch)
                logger.info("HA: lease released", metadata: ["epoch": "\(epoch)"])
            } catch {
                logger.warning("HA: could not release the lease (a standby takes over when it expires): \(error)")
            }
        }
    }

    /// Wakes the loop's wait before its deadline (an answer, an event).
    private func wakeEarly() {
        restingUntil = nil
        wake.notify()
    }

    /// Until `deadline` on the clock, a `wake` (an answer, an event, `stop()`) or cancellation.
    private func wait(until deadline: Date) async {
        guard !isStopping else { return }
        let (clock, wake, label) = (clock, wake, sleepLabel)
        restingUntil = deadline
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await clock.sleep(until: deadline, label: label) }
            group.addTask { await wake.wait() }
            await group.next()
            group.cancelAll()
        }
        restingUntil = nil
    }
}

/// A wake-up for one waiter at a time: `notify()` resumes the `wait()` in progress, or the next one when
/// nobody waits (a notification is never lost, several before a wait count as one); `wait()` also returns
/// when its task is cancelled.
private final class WakeSignal: Sendable {
    private struct State {
        var pending = false
        var nextID: UInt64 = 0
        var waiter: (id: UInt64, continuation: CheckedContinuation<Void, Never>)?
    }

    private let state = Mutex(State())

    func notify() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.pending = true
                return nil
            }
            state.waiter = nil
            return waiter.continuation
        }
        waiter?.resume()
    }

    func wait() async {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.pending {
                        state.pending = false
                        return true
                    }
                    if Task.isCancelled { return true }
                    state.waiter = (id, continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let waiter = state.waiter, waiter.id == id else { return nil }
                state.waiter = nil
                return waiter.continuation
            }
            waiter?.resume()
        }
    }
}

extension ClockLabel {
    /// `instance`'s lease keeper waiting for the lease machine's next deadline (renew, ask again, validity end).
    package static func leaseKeeper(_ instance: String) -> ClockLabel { ClockLabel("lease keeper \(instance)") }
    /// The deadline of `instance`'s lease query in flight.
    package static func leaseQuery(_ instance: String) -> ClockLabel { ClockLabel("lease query \(instance)") }
}
