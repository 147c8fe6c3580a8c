import Foundation
import MarketAlertKit
import Synchronization

/// Keeps the Binance poller under the IP request-weight limit instead of waiting to be banned.
///
/// Binance counts request weight per IP in one-minute windows (6,000 per minute for `/api/v3`) and reports
/// the running total in `X-MBX-USED-WEIGHT-1M` on every answer. Going over gives HTTP 429, and continuing after
/// a 429 gives 418 (an IP ban of minutes to days). So:
/// - when an answer says the used weight is at or above `threshold` (90% of the limit by default), calls are
///   refused locally until the next minute starts (UTC), without touching the network;
/// - after a 429/418 with `Retry-After`, calls are refused locally until that time has passed.
/// A refusal is a `.rateLimited` `SourceError` whose `retryAfter` says how long to wait.
///
/// State is a `Mutex` (the source is a `Sendable` struct shared by whoever polls it); each access is one short
/// critical section, nothing suspends while holding it.
package final class BinanceWeightGuard: Sendable {
    package static let usedWeightHeader = "X-MBX-USED-WEIGHT-1M"

    package let limit: Int
    package let threshold: Int
    private let blockedUntil = Mutex<(until: Date, reason: String)?>(nil)

    package init(limit: Int = 6000, thresholdFraction: Double = 0.9) {
        self.limit = limit
        self.threshold = Int((Double(limit) * thresholdFraction).rounded(.up))
    }

    /// Throws `.rateLimited` if a call now would risk the limit.
    package func checkAllowed(now: Date, source: String) throws(SourceError) {
        let block = blockedUntil.withLock { state -> (until: Date, reason: String)? in
            guard let current = state else { return nil }
            if current.until <= now {
                state = nil
                return nil
            }
            return current
        }
        guard let block else { return }
        let seconds = Int(block.until.timeIntervalSince(now).rounded(.up))
        throw SourceError(
            source: source, kind: .rateLimited(status: 429, retryAfter: .seconds(seconds)),
            message: "not calling: \(block.reason); waiting \(seconds)s (local guard)")
    }

    /// Reads the used weight from a successful answer.
    package func observe(usedWeight header: String?, at receivedAt: Date) {
        guard let header, let used = Int(header.trimmingCharacters(in: .whitespaces)), used >= threshold else { return }
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC") ?? utc.timeZone
        guard let nextMinute = utc.dateInterval(of: .minute, for: receivedAt)?.end else { return }
        block(until: nextMinute, reason: "used weight \(used) of \(limit) this minute")
    }

    /// Remembers the server's own `Retry-After` after a 429/418.
    package func observe(_ error: SourceError, now: Date) {
        guard case .rateLimited(let status, let retryAfter?) = error.kind, retryAfter > .zero else { return }
        block(until: now.addingTimeInterval(retryAfter.seconds), reason: "HTTP \(status) from the server")
    }

    private func block(until date: Date, reason: String) {
        blockedUntil.withLock { state in
            if let current = state, current.until >= date { return }
            state = (date, reason)
        }
    }
}
