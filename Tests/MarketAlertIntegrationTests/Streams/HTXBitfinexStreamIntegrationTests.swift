import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Synchronization
import Testing

/// The built daemon with HTX and Bitfinex on their streams (local servers speaking their protocols: HTX's
/// gzip frames and pings, Bitfinex's numbered channels) and their REST answers from their wire kits: a spike
/// on either stream alerts with that exchange as the dear side, said to come by stream, and HTX's ping is
/// answered with its pong through the daemon.
@Suite(.serialized, .enabled(if: DaemonProcess.binaryExists, "needs the built marketalertd binary (swift build)"))
struct HTXBitfinexStreamIntegrationTests {
    static func config(_ harness: DaemonHarness, htx: URL, bitfinex: URL) -> String {
        let base = harness.apis.baseURL
        return """
            state_dir: \(harness.stateDirectory)
            exchanges:
              htx:      { poll_interval: 5s, timeout: 2s, base_url: "\(base)", stream_url: "\(htx.absoluteString)", stale_after: 30s }
              bitfinex: { poll_interval: 5s, timeout: 2s, base_url: "\(base)", stream_url: "\(bitfinex.absoluteString)", stale_after: 30s }
            premium:
              max_quote_age: 30s
              rules:
                - name: global
                  assets: [BTC]
                  exchanges: [htx, bitfinex]
                  quotes: [USDT]
                  levels:
                    - { pct: 0.05, severity: notice }
                    - { pct: 0.1, severity: warning }
                  clear_pct: 0.04
            sinks:
              stdout: { format: json }
              journal: { enabled: false }
            """
    }

    static var nowMillis: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    static func row(_ price: String) -> WireRow {
        WireRow(
            base: "BTC", quote: "USDT", last: price, bid: price, ask: price, open: price, high: price, low: price, volume: "1",
            quoteVolume: "1", timeMillis: nowMillis)
    }

    /// Serves `exchange`'s REST ticker path from its wire kit, BTC/USDT at `price`.
    static func serveREST(_ apis: MockMarketAPIs, _ exchange: ExchangeID, path: String, price: String) throws {
        let descriptor = try #require(ExchangeRegistry.standard[exchange])
        let id = descriptor.marketID(MarketPair(base: "BTC", quote: "USDT"))
        apis.server.route(path) { request in
            let row = Self.row(price)
            let book = WirePeerBook(live: { [(id: id, row: row)] }, row: { $0 == id ? row : nil })
            guard let answer = descriptor.wire.rest.answer(WireRequest(path: request.path, query: request.query, nowMillis: Self.nowMillis), book)
            else { return .json("[]", status: 404) }
            return MockHTTPServer.Response(status: answer.status, headers: answer.headers, body: Data(answer.body.utf8))
        }
    }

    @Test func spikesOnHTXsGzipStreamAndBitfinexsChannelsAlertByStream() async throws {
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        try Self.serveREST(apis, .htx, path: "/market/tickers", price: "100000.00")
        try Self.serveREST(apis, .bitfinex, path: "/v2/tickers", price: "100000.00")
        let htx = try await WebSocketTestServer(persona: StreamPersonas.of(.htx)(StreamPersonaKnobs()))
        let bitfinex = try await WebSocketTestServer(persona: StreamPersonas.of(.bitfinex)(StreamPersonaKnobs()))
        try harness.writeConfig(Self.config(harness, htx: htx.url("/ws"), bitfinex: bitfinex.url("/ws/2")))
        let daemon = try harness.start()
        defer { daemon.terminate() }
        try await daemon.waitUntilRunning()
        _ = try await daemon.waitForLine("the HTX stream live", stderr: true) { $0.contains("htx stream live") }
        _ = try await daemon.waitForLine("the Bitfinex stream live", stderr: true) { $0.contains("bitfinex stream live") }
        // `basis: last` reads no best bid/ask: HTX's `bbo` is left out, its ticker alone (#26 item 15).
        #expect(htx.connections.first?.texts.contains(#"{"sub":"market.btcusdt.ticker","id":"market.btcusdt.ticker"}"#) == true)
        #expect(htx.connections.first?.texts.contains { $0.contains(".bbo") } == false)
        #expect(bitfinex.connections.first?.texts.contains(#"{"event":"subscribe","channel":"ticker","symbol":"tBTCUST"}"#) == true)

        // HTX's keepalive: its gzip ping is answered with the pong it asks for.
        htx.push(binary: HTXGzip.compress(#"{"ping":1492420473027}"#))
        try await htx.waitUntil("the pong") { $0.connections.first?.texts.contains(#"{"pong":1492420473027}"#) == true }

        // A spike on Bitfinex's channel (the number its subscribed answer gave tBTCUST).
        let channel = BitfinexWire.channel("tBTCUST")
        bitfinex.push("[\(channel),[100200,1.5,100200,2.25,0,0,100200,10,100300,99900]]")
        let firing = try await daemon.waitForEvent("the Bitfinex spike") { $0.key == "premium/global/BTC" && $0.status == "firing" }
        #expect(firing.premium?.high.exchange == "bitfinex")
        #expect(firing.premium?.high.transport == "stream")
        bitfinex.push("[\(channel),[100000,1.5,100000,2.25,0,0,100000,10,100300,99900]]")
        _ = try await daemon.waitForEvent("the Bitfinex clear") { $0.key == "premium/global/BTC" && $0.status == "resolved" }

        // A spike on HTX's stream, gzip-compressed as HTX sends every frame.
        let frame = try #require(ExchangeRegistry.standard[.htx]?.wire.stream).tickerFrame(Self.row("100300.00"), "btcusdt", 1, Self.nowMillis)
        htx.push(binary: HTXGzip.compress(frame))
        let second = try await daemon.waitForEvent("the HTX spike") { event in
            event.key == "premium/global/BTC" && event.status == "firing" && event.premium?.high.exchange == "htx"
        }
        #expect(second.premium?.high.transport == "stream")
        #expect(!daemon.events.contains { $0.kind == .source })
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0)
        await htx.shutdown()
        await bitfinex.shutdown()
    }
}
