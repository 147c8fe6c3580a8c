import Foundation
import Logging
import MarketAlertCore
import MarketAlertKit
import MarketAlertStorage

/// An email sink as an outbox target (`DeliveryTarget`): the outbox queues `EmailMessage`'s bytes once and
/// each attempt runs one `SMTPSession`, bounded by the sink's `timeout` on the daemon's clock. 4xx replies,
/// timeouts and broken connections are retried with the outbox's backoff until `max_age`; a 5xx reply is
/// permanent: the notification is dropped and the drop reported. A retry sends the very bytes queued, so
/// its `Message-ID` is the first attempt's.
package struct EmailDelivery: DeliveryTarget {
    package let target: EmailTarget
    package let clock: any DaemonClock
    /// Says which recipients a server refused while it accepted the message for the others.
    package let logger: Logger?

    package init(_ target: EmailTarget, clock: any DaemonClock, logger: Logger? = nil) {
        self.target = target
        self.clock = clock
        self.logger = logger
    }

    package var name: String { target.name }
    package var kinds: Set<AlertKind> { target.settings.kinds }
    package var maxAge: Duration { target.settings.maxAge }

    package func render(_ event: AlertEvent) throws -> Data {
        EmailMessage.render(event, from: target.settings.from, to: target.settings.to)
    }

    package func attempt(_ row: WebhookOutboxRow, attemptAt: Date) async -> WebhookAttemptResult {
        let session = target.session
        let from = target.settings.from.address
        let recipients = target.settings.to.map(\.address)
        let message = [UInt8](row.body)
        let timeout = target.settings.timeout
        do {
            let outcome = try await clock.withDeadline(timeout, label: .smtpDeadline) {
                try await session.send(message: message, from: from, to: recipients)
            }
            if !outcome.refusedRecipients.isEmpty {
                logger?.warning(
                    "email accepted, but not for \(outcome.refusedRecipients.joined(separator: ", ")): refused by the server, not retried",
                    metadata: ["webhook": "\(target.name)", "event_id": "\(row.eventID)"])
            }
            return .delivered(status: outcome.reply.code)
        } catch is DeadlineExceeded {
            return SMTPFailure.timedOut(timeout).attemptResult
        } catch let failure as SMTPFailure {
            return failure.attemptResult
        } catch is CancellationError {
            return .retryable(reason: "cancelled", retryAfter: nil)
        } catch {
            return .retryable(reason: "SMTP \(error)", retryAfter: nil)
        }
    }

    package func redact(_ text: String) -> String { target.redact(text) }

    package func isSame(as other: any DeliveryTarget) -> Bool { (other as? EmailDelivery)?.target == target }
}

extension ClockLabel {
    /// An SMTP exchange's deadline (the email sink's `timeout`).
    package static let smtpDeadline = ClockLabel("smtp deadline")
}
