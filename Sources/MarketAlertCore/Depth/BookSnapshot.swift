import Foundation

/// A copy of one order book the engine holds, for reading outside evaluation: `GET /api/v1/book` and the
/// `marketalertd_book_levels` gauge (`AlertEngine.orderBook`, `AlertEngine.bookLevels`). Made on request in
/// the engine's own turn, as plain numbers: the engine's book storage is not shared with the copy, so the
/// next depth message neither waits for a reader nor copies its levels.
package struct BookSnapshot: Sendable, Equatable {
    package var exchange: ExchangeID
    /// The market id as the exchange writes it (`BTCUSDT`, `KRW-BTC`, `BTC-USDT`).
    package var market: String
    /// The exchange's time of the book's last change (nil: none yet).
    package var at: Date?
    /// The levels a rule reads (at most the exchange's `depth_levels`), best first: bids descending, asks
    /// ascending.
    package var bids: [Level]
    package var asks: [Level]
    /// In sync with the exchange (seeded by a snapshot, every change since applied in order).
    package var synced: Bool

    package struct Level: Sendable, Equatable {
        package var price: Double
        package var size: Double

        package init(price: Double, size: Double) {
            self.price = price
            self.size = size
        }
    }

    package init(exchange: ExchangeID, market: String, book: OrderBook) {
        self.exchange = exchange
        self.market = market
        at = book.at
        synced = book.isSynced
        bids = Self.levels(book.bids, upTo: book.levels)
        asks = Self.levels(book.asks, upTo: book.levels)
    }

    private static func levels(_ side: BookSide, upTo limit: Int) -> [Level] {
        (0..<min(side.count, limit)).map { Level(price: side.prices[$0], size: side.sizes[$0]) }
    }
}

/// How many levels one held book has per side (`marketalertd_book_levels{exchange, market, side}`).
package struct BookLevelCount: Sendable, Equatable {
    package var exchange: ExchangeID
    package var market: String
    package var bids: Int
    package var asks: Int
}
