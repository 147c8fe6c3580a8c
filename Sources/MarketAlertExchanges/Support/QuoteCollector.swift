import Foundation
import MarketAlertCore
import MarketAlertKit

/// Gathers the watched markets out of a decoded ticker list and applies the rules every source shares:
/// unwatched markets are ignored, a market without any usable price is dropped, an empty list or a list
/// without any watched market is `.empty` naming the missing markets, and partial presence is fine.
/// Watched rows with a price field that was sent but unusable (`WirePrice.rejected`) are counted and one is
/// kept as a sample; `finish()` reports them to the poll's `QuotePollTally` (see `QuoteSource.fetchPoll`).
package struct QuoteCollector {
    package let exchange: ExchangeID
    package let receivedAt: Date
    /// Watched pairs by the exchange's own market id.
    package let watched: [String: MarketPair]
    /// How many rows the response had in all (0 means the exchange sent an empty list).
    package var listCount = 0
    private(set) var quotes: [Quote] = []
    private var found: Set<String> = []
    private var unusable: [String] = []
    /// Watched rows with at least one price field sent but unusable.
    private(set) var rejectedRows = 0
    /// The first such row, e.g. `BTCUSDT last "1e39"`.
    private(set) var rejectedSample: String?

    package init(exchange: ExchangeID, receivedAt: Date, watched: [String: MarketPair]) {
        self.exchange = exchange
        self.receivedAt = receivedAt
        self.watched = watched
    }

    /// Watched pairs keyed by `marketID(pair)`.
    package init(exchange: ExchangeID, receivedAt: Date, pairs: Set<MarketPair>, marketID: (MarketPair) -> String) {
        var index: [String: MarketPair] = [:]
        for pair in pairs { index[marketID(pair)] = pair }
        self.init(exchange: exchange, receivedAt: receivedAt, watched: index)
    }

    package func isWatched(_ market: String) -> Bool { watched[market] != nil }

    /// Adds one ticker row if its market is watched (the first row wins when a market repeats).
    package mutating func add(market: String, last: Price?, bid: Price? = nil, ask: Price? = nil, exchangeTime: Date? = nil) {
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

    /// Adds one ticker row as sent (see the `Price` variant), counting it when a price field was sent but unusable.
    package mutating func add(market: String, last: WirePrice?, bid: WirePrice? = nil, ask: WirePrice? = nil, exchangeTime: Date? = nil) {
        guard watched[market] != nil, !found.contains(market) else { return }
        let rejectedField: (name: String, text: String)? =
            if let text = last?.rejected { ("last", text) }
            else if let text = bid?.rejected { ("bid", text) }
            else if let text = ask?.rejected { ("ask", text) }
            else { nil }
        if let rejectedField {
            rejectedRows += 1
            if rejectedSample == nil { rejectedSample = "\(market) \(rejectedField.name) \"\(rejectedField.text)\"" }
        }
        add(market: market, last: last?.price, bid: bid?.price, ask: ask?.price, exchangeTime: exchangeTime)
    }

    /// Watched markets that were not in the response at all.
    package var missing: [String] { watched.keys.filter { !found.contains($0) }.sorted() }

    /// The quotes found, sorted by market; throws `.empty` when there are none.
    package func finish() throws(SourceError) -> [Quote] {
        let source = exchange.rawValue
        if rejectedRows > 0 { QuotePollTally.current?.record(rows: rejectedRows, sample: rejectedSample) }
        if listCount == 0, !watched.isEmpty {
            throw SourceError(source: source, kind: .empty, message: "empty ticker list")
        }
        if quotes.isEmpty, !watched.isEmpty {
            var parts: [String] = []
            if !missing.isEmpty { parts.append("watched markets not in the response: \(missing.joined(separator: ", "))") }
            if !unusable.isEmpty {
                parts.append(
                    "no usable price (zero, negative, out of range or unparsable) for: \(unusable.sorted().joined(separator: ", "))"
                        + (rejectedSample.map { " (e.g. \($0))" } ?? ""))
            }
            throw SourceError(source: source, kind: .empty, message: parts.joined(separator: "; "))
        }
        return quotes.sorted { $0.market < $1.market }
    }
}
