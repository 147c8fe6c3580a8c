import Foundation
import MarketAlertCore

/// Order books in the stream's market table (v3, `basis: depth`): a decoder writes a book's levels here as
/// the exchange sends them, with the exchange's integrity rule checked where it reads the frame; the table's
/// quote of the market then carries the book (`Quote.depth`) to the engine. Nothing is allocated per
/// message: levels go into each book's reserved storage.
extension StreamMarketTable {
    /// Whether the markets of this table keep books.
    package var keepsBooks: Bool { entries.first?.book != nil }

    /// Starts a full snapshot of entry `index`'s book (both sides emptied).
    package mutating func beginBookSnapshot(_ index: Int) {
        updateBook(index) { $0.beginSnapshot() }
    }

    /// Sets one level of entry `index`'s book (size 0 removes the level).
    package mutating func setBookLevel(_ index: Int, bid: Bool, price: Double, size: Double) {
        _ = updateBook(index) { $0.set(bid: bid, price: price, size: size) }
    }

    /// Ends a snapshot (`snapshot`) or a batch of changes of entry `index`'s book at the exchange's `time`:
    /// the market's best bid and ask follow the book, and the market counts as touched. Returns the fault
    /// when the book is refused (crossed, an invalid level): it is then out of sync until the next snapshot.
    @discardableResult
    package mutating func commitBook(_ index: Int, at time: Date, snapshot: Bool) -> OrderBook.Fault? {
        var fault: OrderBook.Fault?
        var best: (bid: Double?, ask: Double?) = (nil, nil)
        var synced = false
        updateBook(index) { book in
            fault = book.commit(at: time, snapshot: snapshot)
            best = (book.bids.best?.price, book.asks.best?.price)
            synced = book.isSynced
        }
        if synced {
            clear(index, bid: true, ask: true)
            apply(index, bid: best.bid.flatMap { Price($0) }, ask: best.ask.flatMap { Price($0) }, exchangeTime: time)
        } else {
            apply(index, exchangeTime: time)  // an unsynced book is handed on too: the engine must stop using it
        }
        return fault
    }

    /// The exchange's integrity rule failed (a sequence gap, a checksum mismatch): entry `index`'s book is
    /// out of sync until the next snapshot, and the engine is told at once.
    package mutating func invalidateBook(_ index: Int) {
        updateBook(index) { $0.invalidate() }
        apply(index, exchangeTime: entries[index].exchangeTime)
    }

    /// Entry `index`'s book, read in place.
    package func book(_ index: Int) -> OrderBook? { entries[index].book }

}
