import Foundation
import MarketAlertCore
import Synchronization

/// One exchange's market data: its WebSocket stream where it has one, REST otherwise and as the fallback.
/// REST fetches at once at start (so evaluation settles without waiting for a stream), then polls at
/// `poll_interval` whenever the stream is not live; while it is, only the markets the exchange refused on
/// the stream (usually none: then REST is quiet). Stream quotes go through the
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
        let coverage = StreamCoverage()
        let exchange = poller.exchange
        let pairs = pairs
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await stream.run(pairs: pairs) { update in Self.forward(update, from: exchange, to: inbox, coverage: coverage) }
            }
            group.addTask { await poller.run(into: inbox) { coverage.pollScope } }
        }
    }
}

extension ExchangeProducer {
    /// A stream update into the engine's inbox: quotes into its coalescing mailbox (never waits), the
    /// stream's state as an event, and what it covers to the REST poller through `coverage`.
    static func forward(_ update: StreamUpdate, from exchange: ExchangeID, to inbox: EngineInbox, coverage: StreamCoverage) {
        switch update {
        case .live:
            coverage.update { $0.live = true }
            inbox.send(.stream(exchange, live: true, reason: nil))
        case .quotes(let quotes):
            inbox.post(quotes, from: exchange)
        case .down(let reason):
            coverage.update { $0.live = false }
            inbox.send(.stream(exchange, live: false, reason: reason))
        case .restOnly(let pairs):
            coverage.update { $0.restOnly = pairs }
        }
    }
}

/// What the stream carries, shared by the stream and the REST poller: whether it is live, and the markets
/// the exchange refused on it (REST keeps polling those, also while it is live).
final class StreamCoverage: Sendable {
    struct State: Sendable {
        var live = false
        var restOnly: Set<MarketPair> = []
    }

    private let state = Mutex(State())

    func update(_ change: (inout State) -> Void) { state.withLock { change(&$0) } }

    /// What the REST poller polls now: everything while the stream is not live, else only what it refused.
    var pollScope: ExchangePoller.Scope {
        state.withLock { $0.live ? .only($0.restOnly) : .all }
    }
}
