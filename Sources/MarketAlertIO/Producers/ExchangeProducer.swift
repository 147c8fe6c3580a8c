import Foundation
import Logging
import MarketAlertCore
import Synchronization

/// One exchange's market data: its WebSocket stream where it has one, REST otherwise and as the fallback.
/// REST fetches at once at start (so evaluation settles without waiting for a stream), then polls at
/// `poll_interval` whenever the stream is not live; while it is, only the markets the exchange refused on
/// the stream (usually none: then REST is quiet). Stream quotes go through the
/// inbox's coalescing mailbox; the stream's state is reported to the engine (degraded is shown, not an
/// alert: `source/<exchange>` means neither stream nor REST works). Watched markets the exchange does not
/// list at start join the stream when its market list shows them (`runStream`).
package struct ExchangeProducer: Sendable {
    let poller: ExchangePoller
    let stream: (any StreamSource)?
    let pairs: Set<MarketPair>
    let logger: Logger?
    /// The exchange's market list, read every `listingCheck` while some watched markets are not listed (nil:
    /// the stream keeps the markets listed at start until a restart or reload).
    let marketList: (any MarketListSource)?
    let listingCheck: Duration

    /// How often the market list is read while some watched markets are not listed: one request per
    /// exchange (a list, not a request per market), and a listing joins the stream within this.
    package static let defaultListingCheck = Duration.seconds(300)

    package init(
        poller: ExchangePoller, stream: (any StreamSource)?, pairs: Set<MarketPair>, logger: Logger? = nil,
        marketList: (any MarketListSource)? = nil, listingCheck: Duration = defaultListingCheck
    ) {
        self.poller = poller
        self.stream = stream
        self.pairs = pairs
        self.logger = logger
        self.marketList = marketList
        self.listingCheck = listingCheck
    }

    package func run(into inbox: EngineInbox) async {
        guard let stream else {
            await poller.run(into: inbox)
            return
        }
        let coverage = StreamCoverage()
        let exchange = poller.exchange
        // The fetch at start (rules settle on it) also says which markets the exchange lists: the stream
        // subscribes only to those (an exchange refuses the others in-band, one by one).
        let first = await poller.pollOnce(into: inbox)
        guard !Task.isCancelled else { return }
        let streamed = Self.listed(pairs, in: first)
        if streamed.count < pairs.count {
            logger?.info("stream: markets the exchange does not list are not subscribed", metadata: [
                "source": "\(exchange.rawValue)",
                "markets": "\(pairs.subtracting(streamed).map(\.description).sorted().joined(separator: ","))"])
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await runStream(stream, from: streamed, into: inbox, coverage: coverage) }
            group.addTask { await poller.run(into: inbox, afterFirstFetch: true) { coverage.pollScope } }
        }
    }

    /// The watched pairs the exchange lists, as its REST answer shows (every pair when it failed: then the
    /// stream finds out in-band, and refused markets are asked for again later).
    static func listed(_ pairs: Set<MarketPair>, in outcome: Result<[Quote], SourceError>) -> Set<MarketPair> {
        guard case .success(let quotes) = outcome else { return pairs }
        let listed = Set(quotes.map { MarketPair(base: $0.base, quote: $0.quote) }).intersection(pairs)
        return listed.isEmpty ? pairs : listed
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
