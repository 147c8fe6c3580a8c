import Foundation

/// One market of an exchange's market list, as the exchange names it.
package struct ListedMarket: Sendable, Equatable, Codable, Hashable {
    /// The exchange's own market id (`KRW-BTC`, `BTCUSDT`, `BTC_KRW`).
    package var market: String
    package var asset: String
    package var quote: String

    package init(market: String, asset: String, quote: String) {
        self.market = market
        self.asset = asset
        self.quote = quote
    }
}

/// A listing or delisting that was notified (the status page and `/api/v1/listings` show the last 7 days).
package struct ListingRecord: Sendable, Equatable, Codable {
    package var exchange: String
    package var market: ListedMarket
    package var firstSeen: Date
    /// `listed` or `delisted`.
    package var status: String
    package var at: Date
}

/// What the daemon knows of one exchange's market list, persisted in the state store (kind `listing`, key
/// `listings/<exchange>`) so that nothing is notified twice across restarts, reloads and HA takeovers.
package struct ListingBook: Sendable, Equatable, Codable {
    /// The markets in `quotes` last seen listed, by market id, with when each was first seen.
    package var markets: [String: Known]
    /// The quote currencies `markets` covers: a quote added to the configuration is recorded silently.
    package var quotes: [String]
    /// A shrink beyond the sane share, awaiting a second poll that still misses these markets.
    package var unconfirmedRemovals: [String]?
    /// Notified listings and delistings of the last `recentWindow`.
    package var recent: [ListingRecord] = []

    package struct Known: Sendable, Equatable, Codable {
        package var asset: String
        package var quote: String
        package var firstSeen: Date
    }

    package static let kind = "listing"
    package static func key(_ exchange: ExchangeID) -> String { "listings/\(exchange.rawValue)" }
    package static func exchange(ofKey key: String) -> ExchangeID? {
        key.hasPrefix("listings/") ? ExchangeID(String(key.dropFirst("listings/".count))) : nil
    }

    /// How long notified listings stay in `recent`.
    package static let recentWindow: TimeInterval = 7 * 86_400
    /// A list that loses more than this share of the known markets at once (and more than
    /// `shrinkFloor` markets) is a suspect answer: the delistings wait for a second poll that agrees.
    package static let shrinkShare = 0.1
    package static let shrinkFloor = 3
}

/// Events of kind `listing` (key `listing/<exchange>/<market>`, status `listed` or `delisted`).
package enum ListingEvents {
    package static let listed = "listed"
    package static let delisted = "delisted"

    package static func key(_ exchange: ExchangeID, _ market: String) -> String { "listing/\(exchange.rawValue)/\(market)" }

    package static func event(
        id: String, exchange: ExchangeID, market: ListedMarket, firstSeen: Date, status: String, now: Date
    ) -> AlertEvent {
        let verb = status == listed ? "lists" : "no longer lists"
        var event = AlertEvent(
            id: id, key: key(exchange, market.market), kind: .listing, status: status, severity: .notice, at: now,
            summary: "\(exchange.rawValue) \(verb) \(market.market) (\(market.asset)/\(market.quote))"
                + (status == listed ? "" : ", listed since \(Timestamp.rfc3339(firstSeen))"))
        event.listing = ListingDetail(
            exchange: exchange.rawValue, market: market.market, asset: market.asset, quote: market.quote, firstSeen: firstSeen)
        return event
    }
}

/// The `listing` object of an event.
package struct ListingDetail: Sendable, Equatable, Codable {
    package var exchange: String
    package var market: String
    package var asset: String
    package var quote: String
    package var firstSeen: Date?

    package init(exchange: String, market: String, asset: String, quote: String, firstSeen: Date?) {
        self.exchange = exchange
        self.market = market
        self.asset = asset
        self.quote = quote
        self.firstSeen = firstSeen
    }

    enum CodingKeys: String, CodingKey { case exchange, market, asset, quote, firstSeen = "first_seen" }
}
