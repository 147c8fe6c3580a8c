import Foundation
import MarketAlertCore

/// Gathers the watched markets out of a decoded ticker list and applies the rules every source shares:
/// unwatched markets are ignored, a market without any usable price is dropped, an empty list or a list
/// without any watched market is `.empty` naming the missing markets, and partial presence is fine.
struct QuoteCollector {
    let exchange: ExchangeID
    let receivedAt: Date
    /// Watched pairs by the exchange's own market id.
    let watched: [String: MarketPair]
    /// How many rows the response had in all (0 means the exchange sent an empty list).
    var listCount = 0
    private(set) var quotes: [Quote] = []
    private var found: Set<String> = []
    private var unusable: [String] = []

    init(exchange: ExchangeID, receivedAt: Date, watched: [String: MarketPair]) {
        self.exchange = exchange
        self.receivedAt = receivedAt
        self.watched = watched
    }

    /// Watched pairs keyed by `marketID(pair)`.
    init(exchange: ExchangeID, receivedAt: Date, pairs: Set<MarketPair>, marketID: (MarketPair) -> String) {
        var index: [String: MarketPair] = [:]
        for pair in pairs { index[marketID(pair)] = pair }
        self.init(exchange: exchange, receivedAt: receivedAt, watched: index)
    }

    func isWatched(_ market: String) -> Bool { watched[market] != nil }

    /// Adds one ticker row if its market is watched (the first row wins when a market repeats).
    mutating func add(market: String, last: Price?, bid: Price? = nil, ask: Price? = nil, exchangeTime: Date? = nil) {
        guard let pair = watched[market], !found.contains(market) else { return }
        found.insert(market)
        guard last != nil || bid != nil || ask != nil else {
            unusable.append(market)
            return
        }
        quotes.append(Quote(
            exchange: exchange, market: market, base: pair.base, quote: pair.quote,
            last: last, bid: bid, ask: ask, exchangeTime: exchangeTime, receivedAt: receivedAt))
    }

    /// Watched markets that were not in the response at all.
    var missing: [String] { watched.keys.filter { !found.contains($0) }.sorted() }

    /// The quotes found, sorted by market; throws `.empty` when there are none.
    func finish() throws(SourceError) -> [Quote] {
        let source = exchange.rawValue
        if listCount == 0, !watched.isEmpty {
            throw SourceError(source: source, kind: .empty, message: "empty ticker list")
        }
        if quotes.isEmpty, !watched.isEmpty {
            var parts: [String] = []
            if !missing.isEmpty { parts.append("watched markets not in the response: \(missing.joined(separator: ", "))") }
            if !unusable.isEmpty {
                parts.append("no usable price (zero, negative or unparsable) for: \(unusable.sorted().joined(separator: ", "))")
            }
            throw SourceError(source: source, kind: .empty, message: parts.joined(separator: "; "))
        }
        return quotes.sorted { $0.market < $1.market }
    }
}
