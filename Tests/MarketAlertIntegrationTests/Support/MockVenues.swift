import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Synchronization

/// Every exchange of the registry at once, as local peers speaking its real protocol: REST on one HTTP server
/// (each exchange's wire kit answers its own paths, refusals included, as the bench's mock exchanges do), one
/// WebSocket server per exchange answering as its persona, and KuCoin's `POST /api/v1/bullet-public` pointing
/// at KuCoin's server. Each exchange lists exactly the markets given a price; REST answers carry the price
/// set now, and `push` sends one market's ticker frame in the exchange's own shape (HTX: gzip, binary).
final class MockVenues: Sendable {
    static let kucoinToken = "2neAiuYvAU61ZDXANAGAsiL4-iAExhsBXZxftpOeh_55i3Ysy2q2LEsEWU64mdzUOPusi34M_wGoSf7iNyEWJ4aBZXpWhrmY9jKtqkdWoFa75w3i"

    let rest: MockHTTPServer
    let streams: [ExchangeID: WebSocketTestServer]
    private let board = Board()

    /// Prices by exchange and market pair (what each exchange lists), and each exchange's frame sequence.
    private final class Board: Sendable {
        let state = Mutex<(prices: [ExchangeID: [MarketPair: String]], sequence: [ExchangeID: Int])>(([:], [:]))
        /// The `{"ping":N}` sent on HTX's stream, in order.
        let htxPings = Mutex<[Int64]>([])
    }

    struct NoStream: Error, CustomStringConvertible {
        var description: String
    }

    var baseURL: String { rest.baseURL.absoluteString }

    init() async throws {
        rest = try await MockHTTPServer()
        var streams: [ExchangeID: WebSocketTestServer] = [:]
        for descriptor in ExchangeRegistry.standard.listed where descriptor.wire.stream != nil {
            streams[descriptor.id] = try await WebSocketTestServer(persona: StreamPersonas.of(descriptor.id)(StreamPersonaKnobs()))
        }
        self.streams = streams
        let board = board
        let peers = ExchangeRegistry.standard.listed.map { ($0, Self.book(for: $0, board)) }
        rest.fallback { request in
            let wire = WireRequest(path: request.path, query: request.query, nowMillis: Self.nowMillis)
            for (descriptor, book) in peers {
                guard let answer = descriptor.wire.rest.answer(wire, book) else { continue }
                return MockHTTPServer.Response(status: answer.status, headers: answer.headers, body: Data(answer.body.utf8))
            }
            return nil
        }
        if let kucoin = streams[.kucoin] {
            let bullet = KuCoinWire.bullet(endpoint: kucoin.url("/").absoluteString, token: Self.kucoinToken)
            rest.route(KuCoinStream.bulletPath) { request in
                request.method == "POST" ? .json(bullet) : .json(#"{"code":"400001","msg":"method not allowed"}"#, status: 405)
            }
        }
    }

    static var nowMillis: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// A row with `price` as last, bid and ask, stamped now.
    static func row(_ pair: MarketPair, _ price: String) -> WireRow {
        WireRow(
            base: pair.base, quote: pair.quote, last: price, bid: price, ask: price, open: price, high: price, low: price,
            volume: "1", quoteVolume: "1", timeMillis: nowMillis)
    }

    /// What `descriptor`'s peer lists and prices: the markets given a price, by the exchange's REST market id.
    private static func book(for descriptor: ExchangeDescriptor, _ board: Board) -> WirePeerBook {
        let live: @Sendable () -> [(id: String, row: WireRow)] = {
            let prices = board.state.withLock { $0.prices[descriptor.id] ?? [:] }
            return prices.sorted { $0.key.description < $1.key.description }.map { (id: descriptor.marketID($0.key), row: row($0.key, $0.value)) }
        }
        return WirePeerBook(live: live, row: { id in live().first { $0.id == id }?.row })
    }

    /// `exchange` lists `pair` at `price` from now on (REST answers; a stream hears of it only through `push`).
    func set(_ exchange: ExchangeID, _ pair: MarketPair, _ price: String) {
        board.state.withLock { $0.prices[exchange, default: [:]][pair] = price }
    }

    /// Sends `pair` at `price` on `exchange`'s stream as its own ticker frame (the REST book is left alone).
    func push(_ exchange: ExchangeID, _ pair: MarketPair, _ price: String) throws {
        guard let descriptor = ExchangeRegistry.standard[exchange], let peer = descriptor.wire.stream,
              let protocolID = descriptor.stream?.marketID(pair), let server = streams[exchange]
        else { throw NoStream(description: "\(exchange) has no stream peer") }
        let sequence = board.state.withLock { state -> Int in
            state.sequence[exchange, default: 0] += 1
            return state.sequence[exchange, default: 0]
        }
        switch peer.encode(peer.tickerFrame(Self.row(pair, price), protocolID, sequence, Self.nowMillis)) {
        case .text(let text): server.push(text)
        case .binary(let data): server.push(binary: data)
        }
    }

    /// The `exchanges:` entries of a config for `exchanges`, every base URL here. Streaming, each connects to
    /// its server here (KuCoin through the bullet, which needs no `stream_url`); else `stream: false`.
    func exchangesYAML(_ exchanges: [ExchangeID], pollInterval: (ExchangeID) -> String, streaming: Bool, indent: String = "  ") -> String {
        exchanges.map { id in
            var entry = "\(id.rawValue): { poll_interval: \(pollInterval(id)), timeout: 2s, base_url: \"\(baseURL)\""
            if !streaming {
                entry += ", stream: false"
            } else if id != .kucoin, let server = streams[id], let path = ExchangeRegistry.standard[id]?.wire.stream?.path {
                entry += ", stream_url: \"\(server.url(path).absoluteString)\", stale_after: 30s"
            } else {
                entry += ", stale_after: 30s"
            }
            return indent + entry + " }"
        }.joined(separator: "\n")
    }

    /// The pings HTX's server has sent (`{"ping":N}`), each to be answered `{"pong":N}`.
    var htxPings: [Int64] { board.htxPings.withLock { $0 } }

    /// The servers' own keepalives, as the real ones send them unasked (the shapes of the conformance cases,
    /// `Tests/MarketAlertIOTests/Streams/Cases`): Kraken's and Coinbase's heartbeats, HTX's gzip `{"ping":N}`,
    /// Bitfinex's `[chanId,"hb"]` on each channel, Binance's WebSocket ping. The daemon runs on the real clock,
    /// so, like the exchanges, these servers send them on a timer every `period` (well inside each window,
    /// 10 s at the shortest) until the task is cancelled; no test waits on this timer.
    func sendKeepalives(every period: Duration) -> Task<Void, Never> {
        let streams = streams
        let board = board
        let channels = [Self.usd, Self.usdt].map { BitfinexWire.channel(BitfinexTickerSource.symbol($0)) }
        return Task {
            while !Task.isCancelled {
                streams[.kraken]?.push(#"{"channel":"heartbeat"}"#)
                streams[.coinbase]?.push(#"{"type":"heartbeat","last_trade_id":20,"product_id":"BTC-USD","sequence":90,"time":"2021-04-17T16:43:30.244075Z"}"#)
                let ping = Self.nowMillis
                board.htxPings.withLock { $0.append(ping) }
                streams[.htx]?.push(binary: HTXGzip.compress("{\"ping\":\(ping)}"))
                for channel in channels { streams[.bitfinex]?.push("[\(channel),\"hb\"]") }
                streams[.binance]?.ping(Data("binance-keepalive".utf8))
                try? await Task.sleep(for: period)
            }
        }
    }

    static let usd = MarketPair(base: "BTC", quote: "USD")
    static let usdt = MarketPair(base: "BTC", quote: "USDT")

    /// How many polls of `exchange` the REST server has seen begin (its kit's `startsPoll`).
    func polls(_ exchange: ExchangeID) -> Int {
        guard let descriptor = ExchangeRegistry.standard[exchange] else { return 0 }
        let book = Self.book(for: descriptor, board)
        return rest.requests.filter { request in
            descriptor.wire.rest.startsPoll(WireRequest(path: request.path, query: request.query, nowMillis: 0), book) == true
        }.count
    }

    func shutdown() async {
        for server in streams.values { await server.shutdown() }
        await rest.shutdown()
    }
}
