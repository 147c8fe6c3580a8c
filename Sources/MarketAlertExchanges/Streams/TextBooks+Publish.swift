import Foundation
import MarketAlertCore

/// From the text books to the market's `OrderBook` (and the engine): a verified book's top levels, or a book
/// lost to its integrity rule.
extension TextBooks {
    /// Entry `market`'s book failed its exchange's integrity rule (`fault`) or carried an unusable level: it is
    /// unusable (and the engine told) until the exchange's next snapshot, which the transport asks for the
    /// exchange's way (`ExchangeStreamProtocol.bookResync`; counted by reason).
    package static func lost(_ market: Int, in table: inout StreamMarketTable, fault: OrderBook.Fault) {
        table.requestBookSnapshot(market, reason: fault == .checksum ? .checksum : .sequenceGap)
    }

    /// Makes `market`'s `OrderBook` in the table its top levels (the book's own capacity), at `time`: in sync
    /// when `verified`, otherwise out of sync until the next snapshot. Returns the book's fault, if any.
    @discardableResult
    package func publish(_ market: Int, into table: inout StreamMarketTable, at time: Date, verified: Bool) -> OrderBook.Fault? {
        guard verified else {
            Self.lost(market, in: &table, fault: .checksum)
            return .checksum
        }
        // The book becomes the kept levels as a snapshot, but only the levels from the first that differs are
        // written: a message changes a few levels, and rewriting all of them (up to 2 × 40) was most of a
        // small message's time.
        var fault: OrderBook.Fault?
        var synced = false
        table.updateBook(market) { book in
            book.beginSnapshotKeepingLevels()
            let kept = book.levels * 2
            for side in 0..<2 {
                let bid = side == 0
                let wanted = min(kept, count(market, bid: bid))
                let same = agreeing(market, bid: bid, book, upTo: wanted)
                guard same < wanted || (bid ? book.bids.count : book.asks.count) != wanted else { continue }
                book.keepFirst(same, bid: bid)
                for level in same..<wanted {
                    withLevel(market, bid: bid, level) { price, size, _, _ in _ = book.append(bid: bid, price: price, size: size) }
                }
            }
            fault = book.commit(at: time, snapshot: true)
            synced = book.isSynced
        }
        guard synced else {
            table.apply(market, exchangeTime: time)  // an unsynced book is handed on too: the engine must stop using it
            return fault
        }
        // As `commitBook`, but a best bid or ask that moved is read from its text as sent (`Price(bytes:)`), not
        // rebuilt from the double through a `String` and a `Decimal` (which allocate); one that did not move
        // stays the `Price` the market has.
        let held = (bid: table.entries[market].bid, ask: table.entries[market].ask)
        let bid = count(market, bid: true) == 0 ? nil : withLevel(market, bid: true, 0) { price, _, text, _ in
            held.bid?.value == price ? held.bid : Price(bytes: text)
        }
        let ask = count(market, bid: false) == 0 ? nil : withLevel(market, bid: false, 0) { price, _, text, _ in
            held.ask?.value == price ? held.ask : Price(bytes: text)
        }
        table.clear(market, bid: true, ask: true)
        table.apply(market, bid: bid, ask: ask, exchangeTime: time)
        return fault
    }

    /// How many of the best `wanted` levels of `market`'s side `book` already holds, price and size alike.
    func agreeing(_ market: Int, bid: Bool, _ book: OrderBook, upTo wanted: Int) -> Int {
        let side = bid ? book.bids : book.asks
        let base = slotOffset(market, bid: bid, 0)
        return arena.withUnsafeBytes { raw in
            var same = 0
            while same < min(wanted, side.count) {
                let at = base + same * Self.slotBytes
                guard raw.loadUnaligned(fromByteOffset: at, as: Double.self) == side.prices[same],
                      raw.loadUnaligned(fromByteOffset: at + 8, as: Double.self) == side.sizes[same]
                else { break }
                same += 1
            }
            return same
        }
    }
}
