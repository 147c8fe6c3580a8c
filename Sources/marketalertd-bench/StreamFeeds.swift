import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Synchronization

/// One local WebSocket server per registry exchange with a stream (`WebSocketTestServer` with the persona of
/// its wire kit: it acks the daemon's subscriptions as the exchange does), and a feeder pushing each exchange's ticker frames, in
/// its own wire shape, at a fixed rate across the watched assets, prices moving a little around each
/// asset's level (a few premiums fire, most stay quiet).
final class StreamFeeds: Sendable {
    struct Feed: Sendable {
        let exchange: ExchangeID
        let server: WebSocketTestServer
        let path: String
        /// The quote currency streamed (USDT, or KRW on Upbit and Bithumb).
        let quote: String
        let marketID: @Sendable (MarketPair) -> String
        /// A frame as the exchange's server puts it on the wire (text, bytes, or gzip for HTX).
        let encode: @Sendable (String) -> WireReply
    }

    let feeds: [Feed]
    private let pushed = Mutex<[ExchangeID: Int]>([:])
    /// How many times the feeder dropped every connection (`run(rate:dropEvery:)`).
    let drops = Mutex(0)
    /// Per exchange with several connections: which connection subscribed each market (`connection(_:asset:)`).
    private let routes = Mutex<[ExchangeID: (ids: [Int], bySymbol: [String: Int])]>([:])
    private let markets: BenchMarkets

    /// - Parameter exchanges: the exchanges to feed; nil: every registry exchange with a stream.
    init(markets: BenchMarkets, exchanges: [ExchangeID]? = nil) async throws {
        self.markets = markets
        var feeds: [Feed] = []
        let knobs = StreamPersonaKnobs(.ack)
        let chosen = Set(exchanges ?? ExchangeRegistry.standard.ids)
        for descriptor in ExchangeRegistry.standard.listed where chosen.contains(descriptor.id) {
            guard let stream = descriptor.stream, let peer = descriptor.wire.stream else { continue }
            let server = try await WebSocketTestServer(persona: StreamPersonas.persona(peer)(knobs))
            feeds.append(Feed(
                exchange: descriptor.id, server: server, path: peer.path, quote: descriptor.wire.homeQuote,
                marketID: { stream.marketID($0) }, encode: peer.encode))
        }
        self.feeds = feeds
    }

    /// `stream_url` per exchange.
    var urls: [ExchangeID: String] {
        Dictionary(uniqueKeysWithValues: feeds.map { ($0.exchange, $0.server.url($0.path).absoluteString) })
    }

    /// Exchanges with an open connection that has sent its subscription.
    var subscribed: [ExchangeID] {
        feeds.filter { feed in feed.server.openConnections.contains { !$0.received.isEmpty } }.map(\.exchange)
    }

    var pushedCounts: [ExchangeID: Int] { pushed.withLock { $0 } }

    /// Pushes `rate` frames per second on every exchange until cancelled (one asset after another). The
    /// exchanges are spread evenly over each interval, as independent exchanges' frames arrive: a frame
    /// every 2.5 ms at 8 × 50/s, each its own wakeup of the daemon (frames pushed together would share
    /// wakeups and flatter the figure).
    ///
    /// - Parameter dropEvery: every this often, every open connection of every exchange is dropped (closed
    ///   without a close frame), so the daemon reconnects and subscribes again: its memory across reconnects.
    func run(rate: Int, dropEvery: Duration? = nil) async {
        let clock = ContinuousClock()
        let step = Duration.seconds(1) / (rate * max(feeds.count, 1))
        var next = clock.now
        var nextDrop = dropEvery.map { clock.now + $0 }
        var tick = 0
        while !Task.isCancelled {
            if let drop = nextDrop, clock.now >= drop, let dropEvery {
                for feed in feeds {
                    for connection in feed.server.openConnections { feed.server.closeAbruptly(connection.id) }
                }
                drops.withLock { $0 += 1 }
                nextDrop = drop + dropEvery
            }
            for (position, feed) in feeds.enumerated() {
                next += step
                let asset = markets.assets[(tick + position * 7) % markets.assets.count]
                if let frame = frame(feed, asset: asset, tick: tick) {
                    let target = connection(feed, asset: asset)
                    switch feed.encode(frame) {
                    case .text(let text): feed.server.push(text, to: target)
                    case .binary(let data): feed.server.push(binary: data, to: target)
                    }
                    pushed.withLock { $0[feed.exchange, default: 0] += 1 }
                }
                try? await clock.sleep(until: next)
                if Task.isCancelled { return }
            }
            tick += 1
        }
    }

    /// The connection that subscribed `asset`'s market, when the daemon opened several to the exchange (its
    /// markets spread over connections under a per-connection limit); nil: the newest connection, the only one.
    /// (The depth feeder routes its messages with it too.)
    func connection(_ feed: Feed, asset: String) -> Int? {
        let open = feed.server.openConnections
        guard open.count > 1 else { return nil }
        let symbol = feed.marketID(MarketPair(base: asset, quote: feed.quote))
        let ids = open.map(\.id)
        if let known = routes.withLock({ $0[feed.exchange] }), known.ids == ids, let id = known.bySymbol[symbol] { return id }
        // Learned again when the connections change or a market is not placed yet (subscriptions still going
        // out): each market's id as it appears in the subscriptions a connection received.
        var bySymbol: [String: Int] = [:]
        for info in open {
            let sent = info.texts.joined(separator: "\n")
            for other in markets.assets {
                let market = feed.marketID(MarketPair(base: other, quote: feed.quote))
                if bySymbol[market] == nil, Self.names(sent, market) { bySymbol[market] = info.id }
            }
        }
        routes.withLock { $0[feed.exchange] = (ids, bySymbol) }
        return bySymbol[symbol]
    }

    /// Whether `text` holds `market` as a whole token (not inside a longer id: `BTC-USDT` in `WBTC-USDT`).
    private static func names(_ text: String, _ market: String) -> Bool {
        var rest = text[...]
        while let found = rest.range(of: market) {
            let before = found.lowerBound > text.startIndex ? text[text.index(before: found.lowerBound)] : " "
            let after = found.upperBound < text.endIndex ? text[found.upperBound] : " "
            if !(before.isLetter || before.isNumber), !(after.isLetter || after.isNumber) { return true }
            rest = text[found.upperBound...]
        }
        return false
    }

    func shutdown() async {
        for feed in feeds { await feed.server.shutdown() }
    }

    /// One ticker frame of `asset` on `feed`'s exchange, in its wire shape (`TickerFrames`).
    private func frame(_ feed: Feed, asset: String, tick: Int) -> String? {
        let symbol = feed.marketID(MarketPair(base: asset, quote: feed.quote))
        return TickerFrames.frame(feed.exchange, symbol: symbol, quote: feed.quote, usdPrice: markets.usdPrice(asset), tick: tick)
    }
}
