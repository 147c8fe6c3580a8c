import MarketAlertCore
import MarketAlertDelivery
import MarketAlertExchanges
import MarketAlertKit
import MarketAlertStorage
import Synchronization

/// Latest stream quote per exchange and market (by its id on the exchange), waiting for the engine loop. `put` reports whether the
/// exchange's box was empty (then the loop must be told); `take` empties it.
package final class QuoteMailbox: Sendable {
    private let boxes = Mutex<[ExchangeID: [String: Quote]]>([:])

    /// Stores `quotes` (latest wins per market); true when the exchange had nothing waiting before.
    package func put(_ quotes: [Quote], from exchange: ExchangeID) -> Bool {
        boxes.withLock { boxes in
            // One lookup of the exchange's box, updated in place; markets by their id (one string to hash).
            Self.put(quotes, from: exchange, into: &boxes[exchange, default: [:]])
        }
    }

    private static func put(_ quotes: [Quote], from exchange: ExchangeID, into box: inout [String: Quote]) -> Bool {
        let wasEmpty = box.isEmpty
        for quote in quotes where quote.exchange == exchange { box[quote.market] = quote }
        return wasEmpty && !box.isEmpty
    }

    /// Everything waiting for `exchange`, emptying its box.
    package func take(_ exchange: ExchangeID) -> [Quote] {
        boxes.withLock { boxes in
            guard let box = boxes[exchange], !box.isEmpty else { return [] }
            boxes[exchange]?.removeAll(keepingCapacity: true)
            return Array(box.values)
        }
    }
}
