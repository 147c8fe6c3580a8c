import Foundation
import MarketAlertCore
import MarketAlertKit
import MarketAlertStorage

/// A destination of the durable outbox (`WebhookOutbox`): a webhook today, ntfy and email next. The outbox
/// owns everything a durable sink shares — the queue in the state store (both backends), one delivery loop
/// per target with head-of-line order, retries with backoff until `maxAge`, HA fencing of every attempt,
/// metrics and reports — and asks the target only what differs: which kinds it takes, the bytes to queue for
/// an event, and how to attempt one queued row.
package protocol DeliveryTarget: Sendable {
    /// Unique among the outbox's targets; the queue's key (`webhook` column) and the metrics label.
    var name: String { get }
    var kinds: Set<AlertKind> { get }
    /// Keep retrying a queued notification this long after it was queued, then drop it.
    var maxAge: Duration { get }
    /// The exact bytes to queue for `event`: rendered once, sent unchanged on every attempt.
    func render(_ event: AlertEvent) throws -> Data
    /// One attempt to deliver `row` at `attemptAt` (the injected clock's time). Never throws: the result
    /// says whether it was delivered, may be retried, or must be dropped.
    func attempt(_ row: WebhookOutboxRow, attemptAt: Date) async -> WebhookAttemptResult
    /// Error text with this target's secrets (a URL that is a credential, a password) removed.
    func redact(_ text: String) -> String
    /// Whether `other` is this target with the same settings (a reload leaves such a target alone).
    func isSame(as other: any DeliveryTarget) -> Bool
}

/// A webhook as an outbox target: `WebhookBody` renders, `WebhookSender` POSTs (signed).
package struct WebhookDelivery: DeliveryTarget {
    package let target: WebhookTarget
    package let sender: WebhookSender

    package init(_ target: WebhookTarget, sender: WebhookSender) {
        self.target = target
        self.sender = sender
    }

    package var name: String { target.name }
    package var kinds: Set<AlertKind> { target.kinds }
    package var maxAge: Duration { target.maxAge }

    package func render(_ event: AlertEvent) throws -> Data { try WebhookBody.render(event, for: target) }

    package func attempt(_ row: WebhookOutboxRow, attemptAt: Date) async -> WebhookAttemptResult {
        await sender.send(row, to: target, attemptAt: attemptAt)
    }

    package func redact(_ text: String) -> String { target.redact(text) }

    package func isSame(as other: any DeliveryTarget) -> Bool { (other as? WebhookDelivery)?.target == target }
}
