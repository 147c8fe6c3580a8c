import Foundation
import MarketAlertCore
import Synchronization

/// One exchange's market data: its WebSocket stream where it has one, REST otherwise and as the fallback.
/// REST fetches at once at start (so evaluation settles without waiting for a stream), then polls at
/// `poll_interval` whenever the stream is not live, and never while it is. Stream quotes go through the
/// inbox's coalescing mailbox; the stream's state is reported to the engine (degraded is shown, not an
/// alert: `source/<exchange>` means neither stream nor REST works).
package struct ExchangeProducer: Sendable {
    let poller: ExchangePoller
    let stream: (any StreamSource)?
    let pairs: Set<MarketPair>

    package init(poller: ExchangePoller, stream: (any StreamSource)?, pairs: Set<MarketPair>) {
        self.poller = poller
        self.stream = stream
        self.pairs = pairs
    }

    package func run(into inbox: EngineInbox) async {
        guard let stream else {
            await poller.run(into: inbox)
            return
        }
        let live = LiveFlag()
        let exchange = poller.exchange
        let pairs = pairs
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await stream.run(pairs: pairs) { update in Self.forward(update, from: exchange, to: inbox, live: live) }
            }
            group.addTask { await poller.run(into: inbox) { live.get() } }
        }
    }
}

extension ExchangeProducer {
    /// A stream update into the engine's inbox: quotes into its coalescing mailbox (never waits), the
    /// stream's state as an event, and to the REST poller through `live`.
    static func forward(_ update: StreamUpdate, from exchange: ExchangeID, to inbox: EngineInbox, live: LiveFlag) {
        switch update {
        case .live:
            live.set(true)
            inbox.send(.stream(exchange, live: true, reason: nil))
        case .quotes(let quotes):
            inbox.post(quotes, from: exchange)
        case .down(let reason):
            live.set(false)
            inbox.send(.stream(exchange, live: false, reason: reason))
        }
    }
}

/// Whether the stream is live, shared by the stream and the REST poller.
final class LiveFlag: Sendable {
    private let value = Mutex(false)
    func set(_ live: Bool) { value.withLock { $0 = live } }
    func get() -> Bool { value.withLock { $0 } }
}
