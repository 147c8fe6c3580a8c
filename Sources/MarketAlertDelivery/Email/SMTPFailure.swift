import Foundation
import MarketAlertCore

/// Why an SMTP exchange did not end in an accepted message, and whether trying again can help: a 4xx reply,
/// a broken or slow connection and a confused server are transient (the outbox retries until `max_age`);
/// a 5xx reply and a server that cannot be used as configured are permanent (the notification is dropped).
package enum SMTPFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server answered `stage` (`MAIL FROM`, `DATA`, …) with a reply that is not the expected one.
    case rejected(stage: String, reply: SMTPReply)
    /// The connection could not be made or broke.
    case connection(String)
    case connectionClosed
    /// Not SMTP as RFC 5321 says it (a malformed reply, STARTTLS with data in flight).
    case protocolViolation(String)
    /// Cannot work with this server as configured (no AUTH offered, credentials over an unencrypted link).
    case unusable(String)
    /// The whole exchange took longer than the sink's `timeout`.
    case timedOut(Duration)

    package var description: String {
        switch self {
        case .rejected(let stage, let reply): "\(stage) answered \(reply)"
        case .connection(let reason): "connection failed: \(reason)"
        case .connectionClosed: "connection closed by the server"
        case .protocolViolation(let reason): "protocol error: \(reason)"
        case .unusable(let reason): reason
        case .timedOut(let timeout): "no answer within \(DurationText.format(timeout))"
        }
    }

    /// The outbox's verdict: 5xx and an unusable server are permanent; everything else may pass.
    package var attemptResult: WebhookAttemptResult {
        switch self {
        case .rejected(_, let reply) where reply.isPermanent: .permanent(reason: "SMTP \(description)")
        case .unusable: .permanent(reason: "SMTP \(description)")
        default: .retryable(reason: "SMTP \(description)", retryAfter: nil)
        }
    }
}
