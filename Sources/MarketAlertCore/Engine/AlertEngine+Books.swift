import Foundation

/// Reads of the order books the engine holds (v3, `basis: depth`): each stream quote of an exchange some
/// depth rule watches carries its market's book (`Quote.depth`), which the quote book keeps in its slot.
/// These reads copy what they return in the engine's turn (one actor hop per request, nothing on the
/// per-message path).
extension AlertEngine {
    /// A copy of the book held for `market` on `exchange` (the exchange's market id; an exact match first,
    /// else one that differs only in case), or nil when the engine holds none.
    package func orderBook(exchange: ExchangeID, market: String) -> BookSnapshot? {
        let quotes = book.quotes(of: exchange).filter { $0.depth != nil }
        guard let quote = quotes.first(where: { $0.market == market })
            ?? quotes.first(where: { $0.market.caseInsensitiveCompare(market) == .orderedSame }),
            let depth = quote.depth
        else { return nil }
        return BookSnapshot(exchange: exchange, market: quote.market, book: depth)
    }

    /// The levels held per side by every book (the levels a rule reads: at most the exchange's
    /// `depth_levels`), sorted by exchange and market.
    package func bookLevels() -> [BookLevelCount] {
        var counts: [BookLevelCount] = []
        // Only exchanges that keep books (a depth rule watches them) can hold one.
        for exchange in book.exchanges.sorted() where settings.exchanges[exchange]?.booksWanted == true {
            book.forEachOrderBook(of: exchange) { market, depth in
                counts.append(BookLevelCount(
                    exchange: exchange, market: market, bids: min(depth.bids.count, depth.levels), asks: min(depth.asks.count, depth.levels)))
            }
        }
        return counts.sorted { ($0.exchange, $0.market) < ($1.exchange, $1.market) }
    }
}
