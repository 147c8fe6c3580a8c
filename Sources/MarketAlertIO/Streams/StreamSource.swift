import Foundation
import MarketAlertCore

/// What a stream tells its owner.
package enum StreamUpdate: Sendable, Equatable {
    /// Connected and every subscription acknowledged: quotes follow as the market moves.
    case live
    /// Markets that changed since the previous update, the latest value of each (transport `.stream`).
    case quotes([Quote])
    /// Not live (closed, stale, transport silent, subscription refused, backing off): REST should fill in.
    case down(reason: String)
}

/// One exchange's live market data over its public WebSocket.
package protocol StreamSource: Sendable {
    var exchange: ExchangeID { get }
    /// Connects, subscribes to every pair on one connection where the exchange allows, keeps alive, detects
    /// staleness, reconnects with exponential backoff and jitter, resubscribes; runs until cancelled.
    /// `emit` is awaited one update at a time; while it is busy, quotes coalesce (latest value per market).
    /// Returns at once when `pairs` is empty.
    func run(pairs: Set<MarketPair>, emit: @escaping @Sendable (StreamUpdate) async -> Void) async
}
