import Foundation

/// Markets an exchange refused on its stream, and when each is asked for again. Pure: the caller passes `now`.
///
/// A refusal may be permanent (the market is not listed) or transient (maintenance, a rate limit): a market
/// refused is held out of the subscriptions for `first` (1 min), and each further refusal doubles the wait, up
/// to `maximum` (1 h). Once its wait is over (`takeDue`) it is asked for again; it counts as streaming again
/// (`streamed`: its refusals forgotten) when its market data arrives. REST covers it meanwhile.
package struct StreamMarketRetry: Sendable, Equatable {
    package enum State: Sendable, Equatable {
        /// Left out of the subscriptions until `until`.
        case held(until: Date)
        /// Asked for again at `since`, not yet seen streaming.
        case retrying(since: Date)
    }

    package struct Entry: Sendable, Equatable {
        package var refusals: Int
        package var state: State
    }

    package let first: Duration
    package let maximum: Duration
    package private(set) var entries: [String: Entry] = [:]

    package init(first: Duration = .seconds(60), maximum: Duration = .seconds(3600)) {
        self.first = first
        self.maximum = max(first, maximum)
    }

    /// The wait after the `refusals`-th consecutive refusal (1 = first).
    package func delay(afterRefusals refusals: Int) -> Duration {
        let doublings = min(max(refusals - 1, 0), 30)
        let seconds = first.seconds * Double(1 << doublings)
        return seconds >= maximum.seconds ? maximum : .seconds(seconds)
    }

    /// Records a refusal of `market` at `now`; returns when it will be asked for again. A market already held
    /// keeps its wait (the same refusal can be repeated by several frames).
    @discardableResult
    package mutating func refuse(_ market: String, now: Date) -> Date {
        if let entry = entries[market], case .held(let until) = entry.state { return until }
        let refusals = (entries[market]?.refusals ?? 0) + 1
        let until = now.addingTimeInterval(delay(afterRefusals: refusals).seconds)
        entries[market] = Entry(refusals: refusals, state: .held(until: until))
        return until
    }

    /// Markets held out of the subscriptions now.
    package var held: Set<String> {
        Set(entries.lazy.filter { if case .held = $0.value.state { true } else { false } }.map(\.key))
    }

    /// Markets refused at some point and not yet seen streaming (held or retrying): REST covers them.
    package var notStreaming: Set<String> { Set(entries.keys) }

    /// Markets whose wait is over at `now`: they move to `retrying` and are returned (sorted), to be asked for again.
    package mutating func takeDue(now: Date) -> [String] {
        var due: [String] = []
        for (market, entry) in entries {
            if case .held(let until) = entry.state, until <= now {
                entries[market]?.state = .retrying(since: now)
                due.append(market)
            }
        }
        return due.sorted()
    }

    /// Markets asked for again, and since when.
    package var retrying: [(market: String, since: Date)] {
        entries.compactMap { if case .retrying(let since) = $0.value.state { ($0.key, since) } else { nil } }
    }

    /// `market`'s data arrived on the stream: its refusals are forgotten. Returns whether it was retrying.
    @discardableResult
    package mutating func streamed(_ market: String) -> Bool {
        guard let entry = entries[market], case .retrying = entry.state else { return false }
        entries[market] = nil
        return true
    }

    /// When the next held market falls due (nil: none held).
    package var nextDeadline: Date? {
        entries.values.compactMap { if case .held(let until) = $0.state { until } else { nil } }.min()
    }
}
