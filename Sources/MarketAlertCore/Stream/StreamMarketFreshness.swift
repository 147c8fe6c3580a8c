import Foundation

/// Freshness per market on a live stream. Pure: the caller passes `now` and each market's latest data time.
///
/// The connection's own freshness check (`StreamConnectionStateMachine`) only sees whether *any* market sends:
/// one busy market keeps a connection fresh while another says nothing (Binance acknowledges a symbol it will
/// never send). Here each subscribed market must send within `staleAfter` of the later of its latest data and
/// the moment the stream went live; one that does not is stale (handed to REST), until its data arrives again.
package struct StreamMarketFreshness: Sendable, Equatable {
    package let staleAfter: Duration
    /// Since when the stream has been live (nil: not live; nothing is checked).
    package private(set) var liveSince: Date?
    /// Markets (by index) found stale, and the latest data time each had then.
    package private(set) var stale: [Int: Date] = [:]

    package init(staleAfter: Duration) { self.staleAfter = staleAfter }

    /// The stream went live at `now`: every market's window starts afresh.
    package mutating func live(now: Date) {
        liveSince = now
        stale.removeAll()
    }

    /// The stream is not live: nothing is stale on it (REST covers every market).
    package mutating func down() {
        liveSince = nil
        stale.removeAll()
    }

    /// Checks at `now`. `lastData[i]` is market i's latest data (`.distantPast`: none yet); markets with
    /// `watched[i] == false` (refused, not subscribed) are not checked. Returns the markets that just became
    /// stale and those whose data came back.
    package mutating func check(now: Date, lastData: [Date], watched: [Bool]) -> (stale: [Int], recovered: [Int]) {
        guard let liveSince else { return ([], []) }
        var newlyStale: [Int] = []
        var recovered: [Int] = []
        for index in lastData.indices {
            let isWatched = index < watched.count ? watched[index] : true
            if let seen = stale[index] {
                if !isWatched || lastData[index] > seen {
                    stale[index] = nil
                    if isWatched { recovered.append(index) }
                }
                continue
            }
            guard isWatched else { continue }
            let since = max(lastData[index], liveSince)
            if now.timeIntervalSince(since) >= staleAfter.seconds {
                stale[index] = lastData[index]
                newlyStale.append(index)
            }
        }
        return (newlyStale, recovered)
    }

    /// When the next watched market that is not stale would become stale (nil: not live or none).
    package func nextDeadline(lastData: [Date], watched: [Bool]) -> Date? {
        guard let liveSince else { return nil }
        var earliest: Date?
        for index in lastData.indices where stale[index] == nil && (index < watched.count ? watched[index] : true) {
            let due = max(lastData[index], liveSince).addingTimeInterval(staleAfter.seconds)
            if earliest.map({ due < $0 }) ?? true { earliest = due }
        }
        return earliest
    }
}
