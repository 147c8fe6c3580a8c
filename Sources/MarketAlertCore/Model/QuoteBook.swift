import Foundation

/// The latest quote per exchange and market pair. A value type owned by the alert engine: a REST poll
/// replaces an exchange's quotes wholesale, a stream batch updates the markets it carries.
package struct QuoteBook: Sendable {
    private var quotes: [ExchangeID: [MarketPair: Quote]] = [:]

    package init() {}

    /// Replaces everything known about `exchange` with `newQuotes` (markets missing from a poll are dropped,
    /// so a delisted market cannot linger as a stale price).
    package mutating func replace(_ exchange: ExchangeID, with newQuotes: [Quote]) {
        var byPair: [MarketPair: Quote] = [:]
        byPair.reserveCapacity(newQuotes.count)
        for quote in newQuotes where quote.exchange == exchange {
            byPair[MarketPair(base: quote.base, quote: quote.quote)] = quote
        }
        quotes[exchange] = byPair
    }

    /// Merges `newQuotes` into what is known about `exchange` (a stream batch: only the markets it carries
    /// change).
    package mutating func update(_ exchange: ExchangeID, with newQuotes: [Quote]) {
        for quote in newQuotes where quote.exchange == exchange {
            quotes[exchange, default: [:]][MarketPair(base: quote.base, quote: quote.quote)] = quote
        }
    }

    package mutating func remove(_ exchange: ExchangeID) { quotes[exchange] = nil }

    package func quote(_ exchange: ExchangeID, _ pair: MarketPair) -> Quote? { quotes[exchange]?[pair] }
}
