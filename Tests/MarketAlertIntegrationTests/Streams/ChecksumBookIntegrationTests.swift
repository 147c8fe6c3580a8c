import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// The built daemon with a `basis: depth` rule over OKX and Bitget, both on local stream servers speaking
/// their protocols (`books` beside the tickers, every message with its CRC-32 `checksum`), their REST from
/// their wire kits. Bitget's bids above OKX's asks fire the rule with `premium.executable` (buy on OKX, sell
/// on Bitget); an OKX change whose checksum does not match is counted in
/// `marketalertd_book_resyncs_total{reason="checksum"}` and the daemon asks for the book again on the same
/// connection (unsubscribe, subscribe); the fresh snapshot keeps the rule going until Bitget's book falls back.
@Suite(.serialized, .enabled(if: DaemonProcess.binaryExists, "needs the built marketalertd binary (swift build)"))
struct ChecksumBookIntegrationTests {
    static func config(_ harness: DaemonHarness, okx: URL, bitget: URL) -> String {
        let base = harness.apis.baseURL
        return """
            state_dir: \(harness.stateDirectory)
            exchanges:
              okx:    { poll_interval: 5s, timeout: 2s, base_url: "\(base)", stream_url: "\(okx.absoluteString)", stale_after: 30s }
              bitget: { poll_interval: 5s, timeout: 2s, base_url: "\(base)", stream_url: "\(bitget.absoluteString)", stale_after: 30s }
            premium:
              max_quote_age: 30s
              rules:
                - name: executable
                  assets: [BTC]
                  exchanges: [okx, bitget]
                  quotes: [USDT]
                  basis: depth
                  notional: 10000
                  levels:
                    - { pct: 0.1, severity: warning }
                  clear_pct: 0.05
            sinks:
              stdout: { format: json }
              journal: { enabled: false }
            http:
              listen: "127.0.0.1:0"
            """
    }

    static var nowMillis: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// Five levels a side of 0.05 BTC each around `mid`, 10 USDT apart, as `[price, size]` texts.
    static func levels(_ mid: Int, bid: Bool) -> [(String, String)] {
        (1...5).map { step in ("\(bid ? mid - 10 * step : mid + 10 * step).0", "0.050") }
    }

    /// OKX's and Bitget's checksum of a book: top 25 interleaved `bid:ask`, `price:size`, signed.
    static func checksum(bids: [(String, String)], asks: [(String, String)]) -> Int32 {
        var parts: [String] = []
        for level in 0..<25 {
            if level < bids.count { parts += [bids[level].0, bids[level].1] }
            if level < asks.count { parts += [asks[level].0, asks[level].1] }
        }
        return Int32(bitPattern: Array(parts.joined(separator: ":").utf8).withUnsafeBytes { CRC32.checksum($0) })
    }

    static func okxSnapshot(mid: Int) -> String {
        let bids = levels(mid, bid: true)
        let asks = levels(mid, bid: false)
        func side(_ levels: [(String, String)]) -> String { levels.map { #"["\#($0.0)","\#($0.1)","0","1"]"# }.joined(separator: ",") }
        return #"{"arg":{"channel":"books","instId":"BTC-USDT"},"action":"snapshot","data":[{"asks":[\#(side(asks))],"bids":[\#(side(bids))],"ts":"\#(nowMillis)","checksum":\#(checksum(bids: bids, asks: asks))}]}"#
    }

    static func bitgetSnapshot(mid: Int) -> String {
        let bids = levels(mid, bid: true)
        let asks = levels(mid, bid: false)
        func side(_ levels: [(String, String)]) -> String { levels.map { #"["\#($0.0)","\#($0.1)"]"# }.joined(separator: ",") }
        return #"{"action":"snapshot","arg":{"instType":"SPOT","channel":"books","instId":"BTCUSDT"},"data":[{"asks":[\#(side(asks))],"bids":[\#(side(bids))],"checksum":\#(checksum(bids: bids, asks: asks)),"ts":"\#(nowMillis)"}],"ts":\#(nowMillis)}"#
    }

    @Test func bitgetBidsAboveOKXAsksFireAndABadChecksumResyncsOnTheConnection() async throws {
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        try HTXBitfinexStreamIntegrationTests.serveREST(apis, .okx, path: "/api/v5/market/tickers", price: "100000.0")
        try HTXBitfinexStreamIntegrationTests.serveREST(apis, .bitget, path: "/api/v2/spot/market/tickers", price: "100000.0")
        let okx = try await WebSocketTestServer(persona: StreamPersonas.of(.okx)(StreamPersonaKnobs()))
        let bitget = try await WebSocketTestServer(persona: StreamPersonas.of(.bitget)(StreamPersonaKnobs()))
        try harness.writeConfig(Self.config(harness, okx: okx.url("/ws/v5/public"), bitget: bitget.url("/v2/ws/public")))
        let daemon = try harness.start()
        defer { daemon.terminate() }
        try await daemon.waitUntilRunning()
        _ = try await daemon.waitForLine("the OKX stream live", stderr: true) { $0.contains("okx stream live") }
        _ = try await daemon.waitForLine("the Bitget stream live", stderr: true) { $0.contains("bitget stream live") }
        #expect(okx.connections.first?.texts.first?.contains(#"{"channel":"books","instId":"BTC-USDT"}"#) == true)
        #expect(bitget.connections.first?.texts.first?.contains(#""channel":"books","instId":"BTCUSDT""#) == true)

        // OKX asks from 100,010; Bitget bids from 100,590: 0.5% above.
        okx.push(Self.okxSnapshot(mid: 100_000))
        bitget.push(Self.bitgetSnapshot(mid: 100_600))
        let firing = try await daemon.waitForEvent("the executable premium") { $0.key == "premium/executable/BTC" && $0.status == "firing" }
        let executable = try #require(firing.premium?.executable)
        #expect(executable.buy.exchange == "okx" && executable.sell.exchange == "bitget")
        #expect(executable.buy.levels == 2)  // 0.05 BTC at 100,010 and 100,020 cover 10,000 USDT
        #expect(executable.grossPct > 0.5 && executable.netPct < executable.grossPct)

        // An OKX change whose checksum cannot be right: counted, and the book asked for again on the connection.
        okx.push(#"{"arg":{"channel":"books","instId":"BTC-USDT"},"action":"update","data":[{"asks":[["100010.0","0.040","0","1"]],"bids":[],"ts":"\#(Self.nowMillis)","checksum":7}]}"#)
        try await pollUntil("the OKX book unsubscribed and subscribed again") {
            okx.connections.first?.texts.contains { $0.contains(#""op":"unsubscribe""#) && $0.contains("books") } == true
                && okx.connections.first?.texts.last?.contains(#""op":"subscribe","args":[{"channel":"books","instId":"BTC-USDT"}]"#) == true
        }
        #expect(okx.connections.count == 1)
        let api = try await DaemonAPI.connect(to: daemon)
        #expect(try await api.metrics().value("marketalertd_book_resyncs_total", ["exchange": "okx", "reason": "checksum"]) == 1)
        okx.push(Self.okxSnapshot(mid: 100_000))

        // Bitget's book falls back: the premium clears.
        bitget.push(Self.bitgetSnapshot(mid: 100_000))
        _ = try await daemon.waitForEvent("the clear") { $0.key == "premium/executable/BTC" && $0.status == "resolved" }
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0)
        await okx.shutdown()
        await bitget.shutdown()
    }
}
