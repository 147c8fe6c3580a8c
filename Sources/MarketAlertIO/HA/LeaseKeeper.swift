import Foundation
import Logging
import MarketAlertCore

/// The shell around `LeaderLease`: owns the clock, runs the lease queries against `PostgresStore` (each one
/// at a time, abandoned after the machine's query timeout so a hung database cannot keep a leader from
/// stepping down on time), and performs what the machine decides: on `becomeLeader` it sets the store's
/// fence and calls `onLead`; on `stepDown` it clears the fence first (no write of this instance can land
/// after that), logs why, and calls `onStepDown`. A refused fenced write or a failed commit steps down too.
package actor LeaseKeeper {
    package struct Callbacks: Sendable {
        /// The takeover (adopt stored states, resume deliveries); false when it could not be done (then the
        /// instance steps down again and retries). Runs on the keeper: keep it short.
        var onLead: @Sendable (Int64) async -> Bool
        var onStepDown: @Sendable (String) async -> Void

        package init(onLead: @escaping @Sendable (Int64) async -> Bool, onStepDown: @escaping @Sendable (String) async -> Void) {
            self.onLead = onLead
            self.onStepDown = onStepDown
        }
    }

    private var lease: LeaderLease
    private let store: PostgresStore
    private let role: HARole
    private let clock: any DaemonClock
    private let logger: Logger
    private let callbacks: Callbacks
    /// Identifies the query in flight; answers to an abandoned one are ignored.
    private var querySerial = 0
    private var waiting: CheckedContinuation<Void, Never>?
    private var timer: Task<Void, Never>?
    private var stopped = false

    package init(store: PostgresStore, lease: Duration, role: HARole, clock: any DaemonClock, logger: Logger, callbacks: Callbacks) {
        self.store = store
        self.lease = LeaderLease(lease: lease.seconds, now: clock.now())
        self.role = role
        self.clock = clock
        self.logger = logger
        self.callbacks = callbacks
    }

    /// Keeps (or seeks) the lease until cancelled or `stop()`; then gives it up so a standby takes over at once.
    package func run() async {
        store.onFenced { [weak self] epoch in Task { await self?.refused(epoch: epoch) } }
        await withTaskCancellationHandler {
            while !stopped, !Task.isCancelled {
                await step()
                await sleep(until: lease.nextDeadline)
            }
        } onCancel: {
            Task { await self.stop() }
        }
        await resign()
    }

    /// Whether a lease query is out (tests on virtual time wait for its answer before moving time: the
    /// keeper's sleep then is the query's timeout, not rest).
    package var isQuerying: Bool { lease.inFlightSince != nil }

    /// Ends `run()` (a graceful shutdown).
    package func stop() {
        stopped = true
        poke()
    }

    /// A commit failed under this instance's lease: step down; the next takeover decides again.
    package func commitFailed() async {
        await perform(lease.fenced(now: clock.now()))
        poke()
    }

    private func refused(epoch: Int64) async {
        guard lease.epoch == epoch else { return }
        await perform(lease.fenced(now: clock.now()))
        poke()
    }

    private func step() async {
        await perform(lease.tick(now: clock.now()))
    }

    private func perform(_ actions: [LeaderLease.Action]) async {
        for action in actions {
            switch action {
            case .tryAcquire:
                querySerial += 1
                let serial = querySerial
                let seconds = lease.lease
                let store = store
                Task { [weak self] in
                    let outcome: Result<PostgresStore.LeaseAttempt, any Error>
                    do { outcome = .success(try await store.acquireLease(for: seconds)) } catch { outcome = .failure(error) }
                    await self?.acquireAnswered(outcome, serial: serial)
                }
            case .renew(let epoch):
                querySerial += 1
                let serial = querySerial
                let seconds = lease.lease
                let store = store
                Task { [weak self] in
                    let outcome: Result<Bool, any Error>
                    do { outcome = .success(try await store.renewLease(epoch: epoch, for: seconds)) } catch { outcome = .failure(error) }
                    await self?.renewAnswered(outcome, serial: serial)
                }
            case .becomeLeader(let epoch):
                store.setFence(epoch: epoch)
                role.lead(epoch: epoch)
                logger.notice("HA: this instance leads now", metadata: ["epoch": "\(epoch)", "instance": "\(store.instance)"])
                if await !callbacks.onLead(epoch) { await perform(lease.fenced(now: clock.now())) }
            case .stepDown(let reason):
                store.setFence(epoch: nil)
                role.standBy()
                logger.warning("HA: stepping down to standby: \(reason)", metadata: ["instance": "\(store.instance)"])
                await callbacks.onStepDown(reason)
            }
        }
    }

    private func acquireAnswered(_ outcome: Result<PostgresStore.LeaseAttempt, any Error>, serial: Int) async {
        guard serial == querySerial, lease.inFlightSince != nil else { return }
        let now = clock.now()
        switch outcome {
        case .success(.acquired(let epoch)):
            await perform(lease.acquired(epoch: epoch, now: now))
        case .success(.held(let holder, let remaining)):
            logger.debug("HA: standby; the lease is held by \(holder) for \(String(format: "%.1f", remaining)) s")
            lease.notAcquired(remaining: remaining, now: now)
        case .failure(let error):
            logger.warning("HA: cannot reach the database to take the lease: \(error)")
            await perform(lease.failed(now: now))
        }
        poke()
    }

    private func renewAnswered(_ outcome: Result<Bool, any Error>, serial: Int) async {
        guard serial == querySerial, lease.inFlightSince != nil else { return }
        let now = clock.now()
        switch outcome {
        case .success(true):
            lease.renewed(now: now)
        case .success(false):
            await perform(lease.renewRefused(now: now))
        case .failure(let error):
            logger.warning("HA: lease renewal failed: \(error)")
            await perform(lease.failed(now: now))
        }
        poke()
    }

    /// Gives the lease up in the database (best effort) so a standby need not wait for it to expire.
    private func resign() async {
        let epoch = lease.epoch
        await perform(lease.resign(now: clock.now()))
        if let epoch {
            do {
                try await store.releaseLease(epoch: epoch)
                logger.info("HA: lease released", metadata: ["epoch": "\(epoch)"])
            } catch {
                logger.warning("HA: could not release the lease (a standby takes over when it expires): \(error)")
            }
        }
    }

    private func sleep(until deadline: Date) async {
        guard !stopped else { return }
        await withCheckedContinuation { continuation in
            waiting = continuation
            let clock = clock
            timer = Task { [weak self] in
                do { try await clock.sleep(until: deadline) } catch { return }
                await self?.poke()
            }
        }
        timer?.cancel()
        timer = nil
    }

    private func poke() {
        waiting?.resume()
        waiting = nil
    }
}
