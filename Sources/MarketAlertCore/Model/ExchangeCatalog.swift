import Foundation

/// What the config reader needs to know of each exchange the adapters provide: its defaults and limits.
/// Built by `ExchangeRegistry` (MarketAlertIO); the core knows no exchange by itself.
package struct ExchangeCatalog: Sendable {
    package struct Entry: Sendable, Equatable {
        package var id: ExchangeID
        /// Public REST API host, used when `base_url` is omitted.
        package var defaultBaseURL: URL
        /// Public WebSocket endpoint, used when `stream_url` is omitted (and `base_url` is not overridden);
        /// nil when the exchange has no stream adapter.
        package var defaultStreamURL: URL?
        /// The smallest `poll_interval` the exchange's documented REST limits allow for a bulk ticker poll.
        package var minimumPollInterval: Duration
        /// The exchange's published base-tier spot taker fee, in percent (`taker_fee_pct`'s default; the README
        /// lists each with the date it was checked).
        package var takerFeePct: Double
        /// For an exchange asked once per market (Coinbase): how many REST requests a second its poll sends,
        /// within the exchange's public limit; nil: one bulk request serves a poll.
        package var restRequestsPerSecond: Int?

        package init(
            id: ExchangeID, defaultBaseURL: URL, defaultStreamURL: URL? = nil, minimumPollInterval: Duration = .seconds(1),
            takerFeePct: Double = 0.1, restRequestsPerSecond: Int? = nil
        ) {
            self.id = id
            self.defaultBaseURL = defaultBaseURL
            self.defaultStreamURL = defaultStreamURL
            self.minimumPollInterval = minimumPollInterval
            self.takerFeePct = takerFeePct
            self.restRequestsPerSecond = restRequestsPerSecond
        }
    }

    package private(set) var entries: [ExchangeID: Entry] = [:]

    package init(_ entries: [Entry]) {
        for entry in entries { self.entries[entry.id] = entry }
    }

    package subscript(_ id: ExchangeID) -> Entry? { entries[id] }

    /// Known ids, sorted (for error messages).
    package var ids: [ExchangeID] { entries.keys.sorted() }
}
