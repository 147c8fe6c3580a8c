import Foundation
import MarketAlertCore
import MarketAlertKit

/// What a stream tells its owner.
package enum StreamUpdate: Sendable, Equatable {
    /// Connected and every subscription acknowledged: quotes follow as the market moves.
    case live
    /// Markets that changed since the previous update, the latest value of each (transport `.stream`).
    case quotes([Quote])
    /// Not live (closed, stale, transport silent, subscription refused, backing off): REST should fill in.
    case down(reason: String)
    /// The exchange refused these markets on its stream (every one refused so far): the stream leaves them
    /// out of its subscriptions from now on, so REST must keep polling them, also while the stream is live.
    case restOnly(Set<MarketPair>)
}

/// One exchange's live market data over its public WebSocket.
package protocol StreamSource: Sendable {
    var exchange: ExchangeID { get }
    /// Connects, subscribes to every pair on one connection where the exchange allows, keeps alive, detects
    /// staleness, reconnects with exponential backoff and jitter, resubscribes; runs until cancelled.
    /// `emit` is called on the stream's own task, in order, as each update happens, and must not wait: the
    /// consumer coalesces (the engine inbox keeps the latest quote per market until the engine takes them),
    /// so the reader never waits for it. Returns at once when `pairs` is empty.
    func run(pairs: Set<MarketPair>, emit: @escaping @Sendable (StreamUpdate) -> Void) async
}
