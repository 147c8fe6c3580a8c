import Foundation
import MarketAlertCore
import MarketAlertTestSupport
import Testing

/// Issue #26 item 1: a real rule names quote currencies an exchange does not list (`quotes: [KRW, USDT]` on
/// Bybit, which lists only USDT here). The built daemon must subscribe only to what the exchange's REST
/// market data lists, and an in-band refusal of a listed market must leave the connection and every other
/// market live: one connection, never "stream down".
@Suite(.serialized, .enabled(if: DaemonProcess.binaryExists, "needs the built marketalertd binary (swift build)"))
struct StreamListingIntegrationTests {
    static let assets = ["AAVE", "ADA", "AVAX", "BTC", "DOGE", "DOT", "ETH", "LINK", "SOL", "TRX", "XLM", "XRP"]

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
                  assets: [\(assets.joined(separator: ", "))]
                  exchanges: [binance, bybit]
                  quotes: [KRW, USDT]
                  levels:
                    - { pct: 0.05, severity: notice }
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

    @Test func onlyListedMarketsAreSubscribedAndARefusalKeepsTheConnection() async throws {
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        let knobs = StreamPersonaKnobs()
        // Bybit refuses every KRW market in-band (it lists none), and SOLUSDT too although its REST lists it
        // (a market the stream does not carry).
        knobs.refuse(Set(Self.assets.map { "\($0)KRW" } + ["SOLUSDT"]))
        let server = try await WebSocketTestServer(persona: StreamPersonas.of(.bybit)(knobs))
        for asset in Self.assets {
            apis.set("binance", asset, "100.00")
            apis.set("bybit", asset, "100.00")
        }
        try harness.writeConfig(Self.config(harness, stream: server.url()))
        let daemon = try harness.start()
        defer { daemon.terminate() }
        try await daemon.waitUntilRunning()
        try await daemon.waitForLine("the bybit stream live", stderr: true, timeout: .seconds(20)) { $0.contains("bybit stream live") }
        try await daemon.waitForLine("the refusal of SOLUSDT", stderr: true) { $0.contains("refused markets") && $0.contains("SOLUSDT") }
        // Some time for a reconnect to show (the old code's first one came after 1 s).
        try await Task.sleep(for: .seconds(3))

        let sent = server.connections.flatMap(\.texts).filter { $0.contains("subscribe") }
        #expect(!sent.isEmpty)
        #expect(!sent.contains { $0.contains("KRW") }, "a market Bybit does not list was asked for: \(sent)")
        #expect(server.connections.count == 1, "the refusal of SOLUSDT must not cost the connection")
        let downs = daemon.stderrLines.filter { $0.contains("stream down") }
        #expect(downs.isEmpty, "\(downs)")
        // The other markets of SOLUSDT's request were asked for again on the same connection.
        for asset in Self.assets where asset != "SOL" {
            #expect(sent.contains { $0.contains("tickers.\(asset)USDT") }, "\(asset)USDT")
        }
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0)
        await server.shutdown()
    }
}
