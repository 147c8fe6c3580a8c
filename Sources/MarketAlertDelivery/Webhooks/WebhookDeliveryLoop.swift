import CoreMetrics
import Foundation
import Logging
import MarketAlertCore
import MarketAlertKit
import MarketAlertStorage

/// Sends one outbox target's queued notifications, oldest first, one at a time: the next one is not tried until the
/// one before it was delivered or dropped (head-of-line), so a receiver sees them in order. All state is in
/// the outbox table, so a restart picks up where this left off (including a pending backoff).
package struct WebhookDeliveryLoop: Sendable {
    package let control: WebhookLoopControl
    package let store: any WebhookQueueStore
    package let clock: any DaemonClock
    package let logger: Logger
    package let policy: WebhookRetryPolicy
    package let random: @Sendable () -> Double
    package let report: @Sendable (WebhookDeliveryReport) -> Void

    /// Wait this long after the outbox table could not be read.
    package static let storeRetryDelay: Duration = .seconds(5)

    /// Runs until stopped or cancelled. `predecessor` is a retiring loop of the same webhook; it is awaited
    /// first so two loops never send for one webhook at once.
    @concurrent package func run(after predecessor: Task<Void, Never>?) async {
        await predecessor?.value
        var wakeups = control.wakeups.makeAsyncIterator()
        while !Task.isCancelled, !control.isStopping {
            let target = control.target
            let head: WebhookOutboxRow?
            do {
                head = try await store.webhookOutboxHead(webhook: target.name)
            } catch {
                logger.error("cannot read the webhook outbox: \(error)", metadata: ["webhook": "\(target.name)"])
                do { try await clock.sleep(for: Self.storeRetryDelay, label: .webhookDelivery) } catch { return }
                continue
            }
            guard let row = head else {
                // Queue empty: wait for a wake-up (buffered, so one sent since the read above is not lost).
                guard await wakeups.next() != nil else { return }
                continue
            }
            let now = clock.now()
            let expiry = row.createdAt.addingTimeInterval(target.maxAge.seconds)
            if now >= expiry {
                let reason = WebhookRetryPolicy.expiredReason(maxAge: target.maxAge, attempts: row.attempts, lastError: row.lastError)
                if await !finish(row, target: target, decision: .drop(reason: reason), result: nil) {
                    do { try await clock.sleep(for: Self.storeRetryDelay, label: .webhookDelivery) } catch { return }
                }
                continue
            }
            if row.nextAttemptAt > now {
                do { try await clock.sleep(until: min(row.nextAttemptAt, expiry), label: .webhookDelivery) } catch { return }
                continue
            }
            // Under HA a fenced claim: an instance that lost the lease (paused, partitioned) starts no POST.
            do {
                guard try await store.claimWebhookNotification(seq: row.seq) else { continue }
            } catch let refused as HAWriteRefused {
                // Not (or no longer) the leader: wait for the takeover's wake-up (`WebhookOutbox.wakeAll`).
                if case .fenced = refused { logger.warning("webhook notification not sent: \(refused)", metadata: ["event_id": "\(row.eventID)"]) }
                guard await wakeups.next() != nil else { return }
                continue
            } catch {
                logger.warning("webhook notification not sent now: \(error)", metadata: ["webhook": "\(target.name)", "event_id": "\(row.eventID)"])
                do { try await clock.sleep(for: Self.storeRetryDelay, label: .webhookDelivery) } catch { return }
                continue
            }
            guard control.beginAttempt() else { return }
            let result = await target.attempt(row, attemptAt: now)
            let stopRequested = control.endAttempt()
            if Task.isCancelled, result.isFailure {
                return  // cancelled mid-request: leave the row as it was; it is sent again after a restart
            }
            let decision = policy.decide(
                result, attempts: row.attempts + 1, createdAt: row.createdAt, maxAge: target.maxAge, now: clock.now(),
                random: random())
            let recorded = await finish(row, target: target, decision: decision, result: result)
            if stopRequested { return }
            if !recorded {
                // The table still holds the old row; wait rather than resend it in a tight loop.
                do { try await clock.sleep(for: Self.storeRetryDelay, label: .webhookDelivery) } catch { return }
            }
        }
    }

    /// Applies a decision to the outbox table, logs it and reports it; false when the table could not be updated.
    private func finish(
        _ row: WebhookOutboxRow, target: any DeliveryTarget, decision: WebhookRetryPolicy.Decision, result: WebhookAttemptResult?
    ) async -> Bool {
        var logger = logger
        logger[metadataKey: "webhook"] = "\(target.name)"
        logger[metadataKey: "event_id"] = "\(row.eventID)"
        let attempts = result == nil ? row.attempts : row.attempts + 1
        switch decision {
        case .delivered:
            let removed = await remove(row, logger: logger, context: "delivered")
            if attempts > 1 {
                logger.info("webhook notification delivered after \(attempts) attempts")
            } else {
                logger.debug("webhook notification delivered")
            }
            report(.delivered(webhook: target.name, eventID: row.eventID, attempts: attempts))
            return removed
        case .retry(let at):
            let error = target.redact(result?.reason ?? "")
            var recorded = true
            do {
                try await store.recordWebhookFailure(seq: row.seq, attempts: attempts, nextAttemptAt: at, error: error)
            } catch {
                logger.error("cannot record a failed webhook attempt: \(error)")
                recorded = false
            }
            // Once per notification, then every 10th attempt, so a dead receiver does not flood the log.
            let level: Logger.Level = attempts == 1 || attempts % 10 == 0 ? .warning : .debug
            logger.log(level: level, "webhook attempt \(attempts) failed, retrying at \(Timestamp.rfc3339(at)): \(error)")
            report(.retrying(webhook: target.name, eventID: row.eventID, attempts: attempts, nextAttemptAt: at, error: error))
            return recorded
        case .drop(let reason):
            let reason = target.redact(reason)
            let removed = await remove(row, logger: logger, context: "dropped")
            logger.error("webhook notification dropped: \(reason)")
            let cause = if case .permanent = result { "permanent" } else { "max_age" }
            CoreMetrics.Counter(label: MetricNames.webhookDropped, dimensions: [("webhook", target.name), ("reason", cause)]).increment()
            report(.dropped(webhook: target.name, eventID: row.eventID, attempts: attempts, reason: reason))
            return removed
        }
    }

    private func remove(_ row: WebhookOutboxRow, logger: Logger, context: String) async -> Bool {
        do {
            try await store.deleteWebhookNotification(seq: row.seq)
            return true
        } catch {
            logger.error("cannot remove a \(context) webhook notification from the outbox (it may be sent again): \(error)")
            return false
        }
    }
}

extension WebhookAttemptResult {
    package var isFailure: Bool {
        if case .delivered = self { return false }
        return true
    }
}

extension ClockLabel {
    /// A webhook delivery loop waiting for its next attempt (or to read the outbox again).
    package static let webhookDelivery = ClockLabel("webhook delivery")
}
