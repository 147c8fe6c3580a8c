import Foundation
import MarketAlertCore
import MarketAlertTestSupport
import Testing

/// The built daemon with Bybit on its stream (a local server speaking Bybit's protocol) that refuses ETHUSDT,
/// and Binance on REST: while the stream is live with BTC, REST keeps polling ETH on Bybit, so a premium in
/// ETH is still seen (by REST) and one in BTC by stream.
@Suite(.serialized, .enabled(if: DaemonProcess.binaryExists, "needs the built marketalertd binary (swift build)"))
struct StreamRefusalIntegrationTests {
    static func config(_ harness: DaemonHarness, stream: URL) -> String {
        let base = harness.apis.baseURL
        return """
            state_dir: \(harness.stateDirectory)
            exchanges:
              bybit:   { poll_interval: 300ms, timeout: 2s, base_url: "\(base)", stream_url: "\(stream.absoluteString)", stale_after: 30s }
              binance: { poll_interval: 300ms, timeout: 2s, base_url: "\(base)" }
            premium:
              max_quote_age: 30s
              rules:
                - name: global
                  assets: [BTC, ETH]
                  exchanges: [binance, bybit]
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

    /// A Bybit v5 spot `tickers` snapshot stamped now.
    static func ticker(_ symbol: String, _ last: String) -> String {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        return #"{"topic":"tickers.\#(symbol)","ts":\#(now),"type":"snapshot","cs":1,"data":{"symbol":"\#(symbol)","lastPrice":"\#(last)","highPrice24h":"\#(last)","lowPrice24h":"\#(last)","prevPrice24h":"\#(last)","volume24h":"1","turnover24h":"1","price24hPcnt":"0"}}"#
    }

    @Test func aMarketTheStreamRefusesStaysOnRESTWhileTheStreamIsLive() async throws {
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        let knobs = StreamPersonaKnobs()
        knobs.refuse(["ETHUSDT"])
        let server = try await WebSocketTestServer(persona: StreamPersonas.of(.bybit)(knobs))
        for exchange in ["binance", "bybit"] {
            apis.set(exchange, "BTC", "100000.00")
            apis.set(exchange, "ETH", "4000.00")
        }
        try harness.writeConfig(Self.config(harness, stream: server.url()))
        let daemon = try harness.start()
        defer { daemon.terminate() }
        try await daemon.waitUntilRunning()
        try await daemon.waitForLine("the exchange's refusal", stderr: true) { $0.contains("refused markets") }
        try await daemon.waitForLine("the stream live without ETH", stderr: true, timeout: .seconds(20)) { $0.contains("bybit stream live") }
        // Bybit refuses the whole request: BTCUSDT is asked for again on the same connection, without ETHUSDT.
        let subscribed = (server.connections.last?.texts ?? []).filter { $0.contains("subscribe") }
        #expect(subscribed.last.map { $0.contains("BTCUSDT") && !$0.contains("ETHUSDT") } == true, "\(subscribed)")
        #expect(server.connections.count == 1)
        #expect(!daemon.stderrLines.contains { $0.contains("stream down") })

        // ETH moves on Bybit's REST API only: seen although the stream is live.
        apis.set("bybit", "ETH", "4008.00")
        let eth = try await daemon.waitForEvent("the ETH premium, by REST") { $0.key == "premium/global/ETH" && $0.status == "firing" }
        #expect(eth.premium?.high.exchange == "bybit")
        #expect(eth.premium?.high.transport == "rest")

        // BTC moves on the stream only (REST still says 100000): seen by stream.
        server.push(Self.ticker("BTCUSDT", "100200.00"))
        let btc = try await daemon.waitForEvent("the BTC premium, by stream") { $0.key == "premium/global/BTC" && $0.status == "firing" }
        #expect(btc.premium?.high.exchange == "bybit")
        #expect(btc.premium?.high.transport == "stream")
        #expect(!daemon.events.contains { $0.kind == .source })
        #expect(try await SchemaValidator.validateAlertEvents(daemon.stdoutLines) == [])
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0)
        await server.shutdown()
    }
}
