import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// The built daemon with Coinone, Gate and KuCoin on their streams (local servers speaking their protocols)
/// and their REST answers from their wire kits. KuCoin is configured as a user would point it at a private
/// endpoint, with `base_url` only: the daemon asks that server's `POST /api/v1/bullet-public` for the
/// WebSocket server and token, and connects there. A spike on each stream alerts with that exchange as the
/// dear side, said to come by stream.
@Suite(.serialized, .enabled(if: DaemonProcess.binaryExists, "needs the built marketalertd binary (swift build)"))
struct CoinoneGateKuCoinStreamIntegrationTests {
    static let token = "2neAiuYvAU61ZDXANAGAsiL4-iAExhsBXZxftpOeh_55i3Ysy2q2LEsEWU64mdzUOPusi34M_wGoSf7iNyEWJ4aBZXpWhrmY9jKtqkdWoFa75w3i"

    static func config(_ harness: DaemonHarness, coinone: URL, gate: URL) -> String {
        let base = harness.apis.baseURL
        return """
            state_dir: \(harness.stateDirectory)
            exchanges:
              upbit:   { poll_interval: 5s, timeout: 2s, base_url: "\(base)", stream: false }
              coinone: { poll_interval: 5s, timeout: 2s, base_url: "\(base)", stream_url: "\(coinone.absoluteString)", stale_after: 30s }
              gate:    { poll_interval: 5s, timeout: 2s, base_url: "\(base)", stream_url: "\(gate.absoluteString)", stale_after: 30s }
              kucoin:  { poll_interval: 5s, timeout: 2s, base_url: "\(base)", stale_after: 30s }
            premium:
              max_quote_age: 30s
              rules:
                - name: global
                  assets: [BTC]
                  exchanges: [gate, kucoin]
                  quotes: [USDT]
                  levels:
                    - { pct: 0.05, severity: notice }
                    - { pct: 0.1, severity: warning }
                  clear_pct: 0.04
                - name: korea
                  assets: [BTC]
                  exchanges: [upbit, coinone]
                  quotes: [KRW]
                  levels:
                    - { pct: 0.05, severity: notice }
                    - { pct: 0.1, severity: warning }
                  clear_pct: 0.04
            fx:
              poll_interval: 500ms
              max_age: 15m
              providers:
                - name: dunamu
                  base_url: "\(base)"
            sinks:
              stdout: { format: json }
              journal: { enabled: false }
            """
    }

    static var nowMillis: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    static func row(_ price: String, quote: String) -> WireRow {
        WireRow(
            base: "BTC", quote: quote, last: price, bid: price, ask: price, open: price, high: price, low: price, volume: "1",
            quoteVolume: "1", timeMillis: nowMillis)
    }

    /// Serves `exchange`'s REST paths from its wire kit, BTC at `price` in `quote`.
    static func serveREST(_ apis: MockMarketAPIs, _ exchange: ExchangeID, paths: [String], price: String, quote: String) throws {
        let descriptor = try #require(ExchangeRegistry.standard[exchange])
        let id = descriptor.marketID(MarketPair(base: "BTC", quote: quote))
        for path in paths {
            apis.server.route(path) { request in
                let row = Self.row(price, quote: quote)
                let book = WirePeerBook(live: { [(id: id, row: row)] }, row: { $0 == id ? row : nil })
                guard let answer = descriptor.wire.rest.answer(WireRequest(path: request.path, query: request.query, nowMillis: Self.nowMillis), book)
                else { return .json("[]", status: 404) }
                return MockHTTPServer.Response(status: answer.status, headers: answer.headers, body: Data(answer.body.utf8))
            }
        }
    }

    @Test func spikesOnCoinoneGateAndKuCoinStreamsAlertByStreamAndKuCoinConnectsThroughItsBullet() async throws {
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        try Self.serveREST(apis, .upbit, paths: ["/v1/ticker", "/v1/market/all"], price: "140000000", quote: "KRW")
        try Self.serveREST(apis, .coinone, paths: [CoinoneTickerSource.path], price: "140000000", quote: "KRW")
        try Self.serveREST(apis, .gate, paths: [GateTickerSource.path], price: "100000.00", quote: "USDT")
        try Self.serveREST(apis, .kucoin, paths: [KuCoinTickerSource.path], price: "100000.00", quote: "USDT")
        let coinone = try await WebSocketTestServer(persona: StreamPersonas.of(.coinone)(StreamPersonaKnobs()))
        let gate = try await WebSocketTestServer(persona: StreamPersonas.of(.gate)(StreamPersonaKnobs()))
        let kucoin = try await WebSocketTestServer(persona: StreamPersonas.of(.kucoin)(StreamPersonaKnobs()))
        let bullet = KuCoinWire.bullet(endpoint: kucoin.url("/").absoluteString, token: Self.token)
        apis.server.route(KuCoinStream.bulletPath) { request in
            request.method == "POST" ? .json(bullet) : .json(#"{"code":"400001","msg":"method not allowed"}"#, status: 405)
        }
        try harness.writeConfig(Self.config(harness, coinone: coinone.url("/"), gate: gate.url("/ws/v4/")))
        let daemon = try harness.start()
        defer { daemon.terminate() }
        try await daemon.waitUntilRunning()
        for exchange in ["coinone", "gate", "kucoin"] {
            _ = try await daemon.waitForLine("the \(exchange) stream live", stderr: true) { $0.contains("\(exchange) stream live") }
        }
        #expect(coinone.connections.first?.texts.contains(#"{"request_type":"SUBSCRIBE","channel":"TICKER","topic":{"quote_currency":"KRW","target_currency":"BTC"}}"#) == true)
        #expect(gate.connections.first?.uri == "/ws/v4/")
        // `basis: last` reads no best bid/ask: `spot.book_ticker` is left out, tickers alone (#26 item 15).
        #expect(gate.connections.first?.texts.contains { $0.contains(#""channel":"spot.tickers","event":"subscribe","payload":["BTC_USDT"]"#) } == true)
        #expect(gate.connections.first?.texts.contains { $0.contains("spot.book_ticker") } == false)
        // KuCoin: the bullet was asked for with a POST, and the connection carries its token.
        #expect(apis.server.requests(to: KuCoinStream.bulletPath).allSatisfy { $0.method == "POST" })
        #expect(!apis.server.requests(to: KuCoinStream.bulletPath).isEmpty)
        #expect(kucoin.connections.first?.uri == "/?token=\(Self.token)")

        // Gate: its last price lifts Gate above KuCoin (a `spot.book_ticker` frame, unasked for, is read too).
        gate.push(#"{"time":1764115200,"time_ms":\#(Self.nowMillis),"channel":"spot.book_ticker","event":"update","result":{"t":\#(Self.nowMillis),"u":1,"s":"BTC_USDT","b":"100199.9","B":"1","a":"100200.1","A":"1"}}"#)
        gate.push(#"{"time":1764115200,"time_ms":\#(Self.nowMillis),"channel":"spot.tickers","event":"update","result":{"currency_pair":"BTC_USDT","last":"100200","lowest_ask":"100200.1","highest_bid":"100199.9"}}"#)
        let gateFiring = try await daemon.waitForEvent("the Gate spike") { $0.key == "premium/global/BTC" && $0.status == "firing" }
        #expect(gateFiring.premium?.high.exchange == "gate")
        #expect(gateFiring.premium?.high.transport == "stream")
        gate.push(#"{"time":1764115200,"time_ms":\#(Self.nowMillis),"channel":"spot.tickers","event":"update","result":{"currency_pair":"BTC_USDT","last":"100000"}}"#)
        gate.push(#"{"time":1764115200,"time_ms":\#(Self.nowMillis),"channel":"spot.book_ticker","event":"update","result":{"t":\#(Self.nowMillis),"u":2,"s":"BTC_USDT","b":"99999.9","B":"1","a":"100000.1","A":"1"}}"#)
        _ = try await daemon.waitForEvent("the Gate clear") { $0.key == "premium/global/BTC" && $0.status == "resolved" }

        // KuCoin: a spike on `/market/ticker`, through the connection the bullet pointed at.
        let kucoinFrame = try #require(ExchangeRegistry.standard[.kucoin]?.wire.stream).tickerFrame(Self.row("100300.00", quote: "USDT"), "BTC-USDT", 1, Self.nowMillis)
        kucoin.push(kucoinFrame)
        let kucoinFiring = try await daemon.waitForEvent("the KuCoin spike") { event in
            event.key == "premium/global/BTC" && event.status == "firing" && event.premium?.high.exchange == "kucoin"
        }
        #expect(kucoinFiring.premium?.high.transport == "stream")

        // Coinone: a KRW spike over Upbit's REST price.
        let coinoneFrame = try #require(ExchangeRegistry.standard[.coinone]?.wire.stream).tickerFrame(Self.row("140300000", quote: "KRW"), "BTC", 1, Self.nowMillis)
        coinone.push(coinoneFrame)
        let coinoneFiring = try await daemon.waitForEvent("the Coinone spike") { $0.key == "premium/korea/BTC" && $0.status == "firing" }
        #expect(coinoneFiring.premium?.high.exchange == "coinone")
        #expect(coinoneFiring.premium?.high.transport == "stream")
        #expect(coinoneFiring.premium?.low.exchange == "upbit")

        #expect(!daemon.events.contains { $0.kind == .source })
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0)
        await coinone.shutdown()
        await gate.shutdown()
        await kucoin.shutdown()
    }
}
