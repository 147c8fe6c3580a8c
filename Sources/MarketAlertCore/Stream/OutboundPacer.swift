import Foundation

/// A sliding-window limit on messages the client sends over one connection (Binance: 5 per second, pongs
/// included). Remembers the send times of the last `limit` messages; the next may go once the oldest of
/// them is `per` old. Pure: the caller passes `now`.
package struct OutboundPacer: Sendable, Equatable {
    package let limit: Int
    package let per: Duration
    private var recent: [Date] = []

    package init(limit: Int, per: Duration) {
        self.limit = max(1, limit)
        self.per = per
    }

    /// The earliest instant the next message may be sent (`now` or earlier means at once).
    package func nextSlot(now: Date) -> Date {
        guard recent.count >= limit, let oldest = recent.first else { return now }
        return max(now, oldest.addingTimeInterval(per.seconds))
    }

    package func canSend(now: Date) -> Bool { nextSlot(now: now) <= now }

    /// Records a message sent at `now`.
    package mutating func record(now: Date) {
        recent.append(now)
        if recent.count > limit { recent.removeFirst(recent.count - limit) }
    }

    /// Messages sent in the window ending at `now` (for tests and status).
    package func sentInWindow(endingAt now: Date) -> Int {
        recent.filter { now.timeIntervalSince($0) < per.seconds }.count
    }
}
