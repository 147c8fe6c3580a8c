import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Synchronization

/// One local WebSocket server per exchange (`WebSocketTestServer` with that exchange's persona: it acks the
/// daemon's subscriptions as the exchange does), and a feeder pushing each exchange's ticker frames, in
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
        let binary: Bool
    }

    let feeds: [Feed]
    private let pushed = Mutex<[ExchangeID: Int]>([:])
    private let markets: BenchMarkets

    init(markets: BenchMarkets) async throws {
        self.markets = markets
        var feeds: [Feed] = []
        func add<P: ExchangeStreamProtocol>(_ stream: P, _ path: String, _ persona: @escaping WebSocketTestServer.Persona, binary: Bool = false) async throws {
            let krw = EvaluationBenchmark.krwExchanges.contains(stream.exchange)
            feeds.append(Feed(
                exchange: stream.exchange, server: try await WebSocketTestServer(persona: persona), path: path, quote: krw ? "KRW" : "USDT",
                marketID: { stream.marketID($0) }, binary: binary))
        }
        let knobs = StreamPersonaKnobs(.ack)
        try await add(BinanceStream(), "/ws", StreamPersonas.binance(knobs))
        try await add(BybitStream(), "/v5/public/spot", StreamPersonas.bybit(knobs))
        try await add(BitgetStream(), "/v2/ws/public", StreamPersonas.bitget(knobs))
        try await add(OKXStream(), "/ws/v5/public", StreamPersonas.okx(knobs))
        try await add(UpbitStream(), "/websocket/v1", StreamPersonas.upbitStyle(binary: true, format: "SIMPLE")(knobs), binary: true)
        try await add(BithumbStream(), "/websocket/v1", StreamPersonas.upbitStyle(binary: false, format: "DEFAULT")(knobs))
        try await add(KrakenStream(), "/v2", StreamPersonas.kraken(knobs))
        try await add(CoinbaseStream(), "/", StreamPersonas.coinbase(knobs))
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
    func run(rate: Int) async {
        let clock = ContinuousClock()
        let step = Duration.seconds(1) / (rate * max(feeds.count, 1))
        var next = clock.now
        var tick = 0
        while !Task.isCancelled {
            for (position, feed) in feeds.enumerated() {
                next += step
                let asset = markets.assets[(tick + position * 7) % markets.assets.count]
                if let frame = frame(feed, asset: asset, tick: tick) {
                    if feed.binary { feed.server.push(binary: Data(frame.utf8)) } else { feed.server.push(frame) }
                    pushed.withLock { $0[feed.exchange, default: 0] += 1 }
                }
                try? await clock.sleep(until: next)
                if Task.isCancelled { return }
            }
            tick += 1
        }
    }

    func shutdown() async {
        for feed in feeds { await feed.server.shutdown() }
    }

    /// One ticker frame of `asset` on `feed`'s exchange, in its wire shape (see Tests/Fixtures/streams).
    private func frame(_ feed: Feed, asset: String, tick: Int) -> String? {
        let usd = markets.usdPrice(asset) * (1 + Double((tick * 13) % 7) * 0.00003)
        let price = feed.quote == "KRW" ? usd * BenchMarkets.usdKRW : usd
        let places = DecimalFormat.places(for: price)
        let p = DecimalFormat.fixed(price, places: places)
        let b = DecimalFormat.fixed(price * 0.99999, places: places)
        let a = DecimalFormat.fixed(price * 1.00001, places: places)
        let symbol = feed.marketID(MarketPair(base: asset, quote: feed.quote))
        let millis = Int64(Date().timeIntervalSince1970 * 1000)
        switch feed.exchange {
        case .binance:
            return #"{"e":"24hrTicker","E":\#(millis),"s":"\#(symbol)","c":"\#(p)","b":"\#(b)","B":"1.5","a":"\#(a)","A":"2.5"}"#
        case .bybit:
            return #"{"topic":"tickers.\#(symbol)","ts":\#(millis),"type":"snapshot","cs":\#(tick),"data":{"symbol":"\#(symbol)","lastPrice":"\#(p)","highPrice24h":"\#(p)","lowPrice24h":"\#(b)","prevPrice24h":"\#(p)","volume24h":"10.5","turnover24h":"1000.5","price24hPcnt":"0.0001"}}"#
        case .bitget:
            return #"{"action":"snapshot","arg":{"instType":"SPOT","channel":"ticker","instId":"\#(symbol)"},"data":[{"instId":"\#(symbol)","lastPr":"\#(p)","bidPr":"\#(b)","askPr":"\#(a)","bidSz":"0.5","askSz":"0.5","ts":"\#(millis)"}],"ts":\#(millis)}"#
        case .okx:
            return #"{"arg":{"channel":"tickers","instId":"\#(symbol)"},"data":[{"instType":"SPOT","instId":"\#(symbol)","last":"\#(p)","lastSz":"0.1","askPx":"\#(a)","askSz":"1.5","bidPx":"\#(b)","bidSz":"0.2","ts":"\#(millis)"}]}"#
        case .upbit:
            return #"{"ty":"ticker","cd":"\#(symbol)","tp":\#(p),"tms":\#(millis),"st":"REALTIME"}"#
        case .bithumb:
            return #"{"type":"ticker","code":"\#(symbol)","trade_price":\#(p),"timestamp":\#(millis),"stream_type":"REALTIME"}"#
        case .kraken:
            return #"{"channel":"ticker","type":"update","data":[{"symbol":"\#(symbol)","bid":\#(b),"bid_qty":0.5,"ask":\#(a),"ask_qty":0.5,"last":\#(p),"volume":10.5,"vwap":\#(p),"low":\#(b),"high":\#(a),"change":0.1,"change_pct":0.01}]}"#
        case .coinbase:
            let time = Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
            return #"{"type":"ticker","sequence":\#(tick),"product_id":"\#(symbol)","price":"\#(p)","best_bid":"\#(b)","best_ask":"\#(a)","side":"buy","time":"\#(time)","trade_id":\#(tick),"last_size":"0.01"}"#
        default:
            return nil
        }
    }
}
