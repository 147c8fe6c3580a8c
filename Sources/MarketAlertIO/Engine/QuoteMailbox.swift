import MarketAlertCore
import Synchronization

/// Latest stream quote per exchange and market, waiting for the engine loop. `put` reports whether the
/// exchange's box was empty (then the loop must be told); `take` empties it.
package final class QuoteMailbox: Sendable {
    private let boxes = Mutex<[ExchangeID: [MarketPair: Quote]]>([:])

    /// Stores `quotes` (latest wins per market); true when the exchange had nothing waiting before.
    func put(_ quotes: [Quote], from exchange: ExchangeID) -> Bool {
        boxes.withLock { boxes in
            let wasEmpty = boxes[exchange]?.isEmpty ?? true
            for quote in quotes where quote.exchange == exchange {
                boxes[exchange, default: [:]][MarketPair(base: quote.base, quote: quote.quote)] = quote
            }
            return wasEmpty && !(boxes[exchange]?.isEmpty ?? true)
        }
    }

    /// Everything waiting for `exchange`, emptying its box.
    func take(_ exchange: ExchangeID) -> [Quote] {
        boxes.withLock { boxes in
            guard let box = boxes[exchange], !box.isEmpty else { return [] }
            boxes[exchange]?.removeAll(keepingCapacity: true)
            return Array(box.values)
        }
    }
}
