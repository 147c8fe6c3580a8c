import Foundation
import MarketAlertKit
import MarketAlertStorage

/// What became of one attempt, reported to the outbox's observer (for status, metrics and tests) after the
/// outbox table has been updated.
package enum WebhookDeliveryReport: Sendable, Equatable {
    case delivered(webhook: String, eventID: String, attempts: Int)
    /// Failed; stays queued and is tried again at `nextAttemptAt`.
    case retrying(webhook: String, eventID: String, attempts: Int, nextAttemptAt: Date, error: String)
    /// Given up (permanent failure or max_age) and removed from the outbox.
    case dropped(webhook: String, eventID: String, attempts: Int, reason: String)

    package var eventID: String {
        switch self {
        case .delivered(_, let id, _), .retrying(_, let id, _, _, _), .dropped(_, let id, _, _): id
        }
    }
}
