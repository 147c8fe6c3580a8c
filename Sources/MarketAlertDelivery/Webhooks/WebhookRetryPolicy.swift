import Foundation
import MarketAlertCore
import MarketAlertKit
import MarketAlertStorage

/// What to do with a notification after an attempt. Pure: time and randomness come in as arguments.
package struct WebhookRetryPolicy: Sendable, Equatable {
    /// 1 s doubling to 5 min, ±20 % jitter.
    package var backoff = Backoff(base: .seconds(1), maximum: .seconds(300), jitter: 0.2)

    package init() {}

    package init(backoff: Backoff) { self.backoff = backoff }

    package enum Decision: Sendable, Equatable {
        /// Delivered: remove it from the outbox.
        case delivered
        /// Try again at this instant (never before a server's Retry-After).
        case retry(at: Date)
        /// Give up: a permanent failure, or the next attempt would fall after max_age.
        case drop(reason: String)
    }

    /// - Parameters:
    ///   - attempts: attempts made so far, including the one that produced `result`.
    ///   - random: a number in 0..<1 for the jitter.
    package func decide(
        _ result: WebhookAttemptResult, attempts: Int, createdAt: Date, maxAge: Duration, now: Date, random: Double
    ) -> Decision {
        switch result {
        case .delivered:
            return .delivered
        case .permanent(let reason):
            return .drop(reason: "permanent failure, not retried: \(reason)")
        case .retryable(let reason, let retryAfter):
            let delay = backoff.delay(afterFailures: attempts, random: random, minimum: retryAfter)
            let next = now.addingTimeInterval(delay.seconds)
            let expiry = createdAt.addingTimeInterval(maxAge.seconds)
            if next >= expiry {
                return .drop(reason: Self.expiredReason(maxAge: maxAge, attempts: attempts, lastError: reason))
            }
            return .retry(at: next)
        }
    }

    package static func expiredReason(maxAge: Duration, attempts: Int, lastError: String?) -> String {
        let plural = attempts == 1 ? "attempt" : "attempts"
        let last = lastError.map { "; last error: \($0)" } ?? ""
        return "not delivered within max_age \(DurationText.format(maxAge)) (\(attempts) \(plural)\(last))"
    }
}
