import Foundation
import MarketAlertCore
import Testing

/// The order book keeps the best levels in order, applies changes in place, and refuses what no exchange may
/// send (a crossed book, a non-positive or non-finite level).
@Suite struct OrderBookTests {
    let t0 = Date(timeIntervalSince1970: 1_750_000_000)

    func book(levels: Int = 3, bids: [(Double, Double)], asks: [(Double, Double)]) -> OrderBook {
        var book = OrderBook(levels: levels)
        book.beginSnapshot()
        for (price, size) in bids { book.set(bid: true, price: price, size: size) }
        for (price, size) in asks { book.set(bid: false, price: price, size: size) }
        book.commit(at: t0, snapshot: true)
        return book
    }

    @Test func levelsAreKeptBestFirstWhateverTheOrderTheyArrive() {
        let book = book(bids: [(99, 1), (101, 2), (100, 3)], asks: [(105, 1), (103, 2), (104, 3)])
        #expect(book.bids.prices == [101, 100, 99])
        #expect(book.bids.sizes == [2, 3, 1])
        #expect(book.asks.prices == [103, 104, 105])
        #expect(book.isSynced)
        #expect(book.isUsable(now: t0.addingTimeInterval(1), maxAge: 10))
        #expect(!book.isUsable(now: t0.addingTimeInterval(11), maxAge: 10))
    }

    @Test func aZeroSizeRemovesALevelAndADeeperOneMovesUp() {
        var book = book(levels: 2, bids: [(101, 1), (100, 1), (99, 1), (98, 1)], asks: [(103, 1)])
        // Twice `levels` are kept, so the level at 99 is there to move up.
        #expect(book.bids.prices == [101, 100, 99, 98])
        book.set(bid: true, price: 101, size: 0)
        book.set(bid: true, price: 100, size: 0)
        book.commit(at: t0, snapshot: false)
        #expect(book.bids.prices == [99, 98])
        #expect(book.isSynced)
    }

    @Test func levelsBeyondTheCapacityAreDropped() {
        let book = book(levels: 1, bids: [(101, 1), (100, 1), (99, 1)], asks: [(103, 1)])
        #expect(book.bids.prices == [101, 100])
    }

    @Test func aCrossedBookIsRefusedUntilTheNextSnapshot() {
        var book = book(bids: [(101, 1)], asks: [(103, 1)])
        book.set(bid: true, price: 104, size: 1)
        #expect(book.commit(at: t0, snapshot: false) == .crossed)
        #expect(!book.isSynced)
        #expect(!book.isUsable(now: t0, maxAge: 10))
        book.beginSnapshot()
        book.set(bid: true, price: 101, size: 1)
        book.set(bid: false, price: 103, size: 1)
        #expect(book.commit(at: t0, snapshot: true) == nil)
        #expect(book.isSynced)
    }

    @Test(arguments: [(-1.0, 1.0), (0, 1), (.nan, 1), (.infinity, 1), (100, -1), (100, .nan)])
    func aLevelNoExchangeMaySendMarksTheBookOutOfSync(price: Double, size: Double) {
        var book = book(bids: [(101, 1)], asks: [(103, 1)])
        #expect(book.set(bid: true, price: price, size: size) == .invalidLevel)
        #expect(!book.isSynced)
        #expect(book.bids.prices == [101])
    }

    @Test func aGapInvalidatesTheBook() {
        var book = book(bids: [(101, 1)], asks: [(103, 1)])
        book.invalidate()
        #expect(!book.isUsable(now: t0, maxAge: 10))
    }

    @Test func anEmptySideIsNotUsable() {
        let book = book(bids: [(101, 1)], asks: [])
        #expect(book.isSynced)
        #expect(!book.isUsable(now: t0, maxAge: 10))
    }
}

extension OrderBookTests {
    @Test func aSnapshotWithAnInvalidLevelIsRefusedWhole() {
        var book = OrderBook(levels: 3)
        book.beginSnapshot()
        book.set(bid: true, price: 101, size: 1)
        book.set(bid: false, price: -1, size: 1)
        book.set(bid: false, price: 103, size: 1)
        #expect(book.commit(at: t0, snapshot: true) == .invalidLevel)
        #expect(!book.isSynced)
    }
}
