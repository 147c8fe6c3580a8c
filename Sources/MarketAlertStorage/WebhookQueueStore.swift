import Foundation
import MarketAlertKit

/// One queued webhook notification (a row of `webhook_outbox`).
package struct WebhookOutboxRow: Sendable, Equatable {
    /// Queue order; per webhook, lower is sent first.
    package var seq: Int64
    package var webhook: String
    /// The event's id, sent as `webhook-id` on every attempt.
    package var eventID: String
    /// The exact bytes to POST.
    package var body: Data
    package var createdAt: Date
    /// Attempts made so far.
    package var attempts: Int
    package var nextAttemptAt: Date
    package var lastError: String?
    /// created_at + the webhook's max_age when queued (nil on rows from before v2).
    package var expiresAt: Date?

    package init(
        seq: Int64, webhook: String, eventID: String, body: Data, createdAt: Date, attempts: Int, nextAttemptAt: Date,
        lastError: String?, expiresAt: Date?
    ) {
        self.seq = seq
        self.webhook = webhook
        self.eventID = eventID
        self.body = body
        self.createdAt = createdAt
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.lastError = lastError
        self.expiresAt = expiresAt
    }
}

/// A notification to queue for one webhook.
package struct WebhookOutboxEntry: Sendable, Equatable {
    package var webhook: String
    package var eventID: String
    package var body: Data
    package var expiresAt: Date

    package init(webhook: String, eventID: String, body: Data, expiresAt: Date) {
        self.webhook = webhook
        self.eventID = eventID
        self.body = body
        self.expiresAt = expiresAt
    }
}

/// The webhook outbox's storage: a durable FIFO per webhook. A committed insert survives a crash of the
/// process, so nothing queued is lost.
package protocol WebhookQueueStore: Sendable {
    /// Queues `entries` in one transaction, due at once.
    func enqueueWebhookNotifications(_ entries: [WebhookOutboxEntry], at now: Date) async throws
    /// The oldest queued notification of `webhook` (the only one that may be sent next).
    func webhookOutboxHead(webhook: String) async throws -> WebhookOutboxRow?
    /// Every queued notification of `webhook`, oldest first.
    func webhookOutboxRows(webhook: String) async throws -> [WebhookOutboxRow]
    func webhookOutboxCount(webhook: String) async throws -> Int
    /// Records a failed attempt: the attempt count, when to try next and why it failed.
    func recordWebhookFailure(seq: Int64, attempts: Int, nextAttemptAt: Date, error: String) async throws
    /// Removes a delivered or dropped notification.
    func deleteWebhookNotification(seq: Int64) async throws
    /// Called immediately before each POST of row `seq`: under HA a fenced write (throws `HAWriteRefused` when
    /// this instance no longer leads, so it cannot start a delivery); false when the row is gone.
    func claimWebhookNotification(seq: Int64) async throws -> Bool
    /// Deletes the expired notifications of webhooks no longer configured; how many went, per webhook.
    func purgeExpiredWebhookNotifications(exceptFor configured: Set<String>, now: Date) async throws -> [String: Int]
}

extension WebhookQueueStore {
    /// One process owns the queue (the state directory lock): nothing to claim.
    package func claimWebhookNotification(seq: Int64) async throws -> Bool { true }
}
