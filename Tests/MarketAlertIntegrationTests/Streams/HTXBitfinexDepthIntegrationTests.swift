import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// The built daemon with a `basis: depth` rule over HTX and Bitfinex, both on local stream servers speaking
/// their protocols (HTX's gzip `depth.step0` pushes beside `bbo`; Bitfinex's checksummed P0 `book` beside
/// `ticker`), their REST from their wire kits. Bitfinex's bids above HTX's asks fire the rule with the
/// executable premium of buying 10,000 USDT on HTX and selling on Bitfinex, its pct exactly the one worked
/// out here from the two books and the two published taker fees; a Bitfinex checksum that cannot hold is
/// counted in `marketalertd_book_resyncs_total{exchange="bitfinex",reason="checksum"}` and a replacement
/// connection brings the book anew; the premium clears when HTX's book comes up to Bitfinex's.
@Suite(.serialized, .enabled(if: DaemonProcess.binaryExists, "needs the built marketalertd binary (swift build)"))
struct HTXBitfinexDepthIntegrationTests {
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
                - name: executable
                  assets: [BTC]
                  exchanges: [htx, bitfinex]
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

    /// Five levels a side 10 USDT apart around `mid`, 0.05 BTC each.
    static func prices(_ mid: Int, bid: Bool) -> [Int] { (1...5).map { bid ? mid - 10 * $0 : mid + 10 * $0 } }

    static func htxDepth(mid: Int, version: Int) -> Data {
        func side(_ prices: [Int]) -> String { prices.map { "[\($0).0,0.05]" }.joined(separator: ",") }
        let now = nowMillis
        return HTXGzip.compress(
            #"{"ch":"market.btcusdt.depth.step0","ts":\#(now),"tick":{"bids":[\#(side(prices(mid, bid: true)))],"asks":[\#(side(prices(mid, bid: false)))],"version":\#(version),"ts":\#(now)}}"#)
    }

    static func htxBBO(mid: Int) -> Data {
        HTXGzip.compress(
            #"{"ch":"market.btcusdt.bbo","ts":\#(nowMillis),"tick":{"seqId":\#(nowMillis),"ask":\#(mid + 10).0,"askSize":0.05,"bid":\#(mid - 10).0,"bidSize":0.05,"quoteTime":\#(nowMillis),"symbol":"btcusdt"}}"#)
    }

    static let bookChannel = BitfinexWire.bookChannel("tBTCUST")

    static func bitfinexSnapshot(mid: Int) -> String {
        let levels = prices(mid, bid: true).map { "[\($0),1,0.05]" } + prices(mid, bid: false).map { "[\($0),1,-0.05]" }
        return "[\(bookChannel),[\(levels.joined(separator: ","))]]"
    }

    /// Bitfinex's checksum of that book: top 25 interleaved `price:amount` as sent, signed CRC-32.
    static func bitfinexChecksum(mid: Int) -> Int32 {
        let text = zip(prices(mid, bid: true), prices(mid, bid: false)).map { "\($0):0.05:\($1):-0.05" }.joined(separator: ":")
        return Int32(bitPattern: Array(text.utf8).withUnsafeBytes { CRC32.checksum($0) })
    }

    /// The trade worked out independently (exact decimals): 10,000 USDT of HTX's asks bought, the quantity sold
    /// into Bitfinex's bids; gross and net of both 0.2% taker fees, in percent, to the event's 6 decimals.
    static func expectedPct(buyAsks: [Int], sellBids: [Int]) -> (gross: Double, net: Double) {
        var left = Decimal(10_000)
        var quantity = Decimal(0)
        for price in buyAsks where left > 0 {
            let cost = min(left, Decimal(price) * Decimal(string: "0.05")!)
            quantity += cost / Decimal(price)
            left -= cost
        }
        var unsold = quantity
        var proceeds = Decimal(0)
        for price in sellBids where unsold > 0 {
            let size = min(unsold, Decimal(string: "0.05")!)
            proceeds += size * Decimal(price)
            unsold -= size
        }
        let gross = (proceeds / 10_000 - 1) * 100
        let net = (proceeds * Decimal(string: "0.998")! / (Decimal(10_000) * Decimal(string: "1.002")!) - 1) * 100
        func rounded(_ value: Decimal) -> Double {
            var input = value
            var output = Decimal()
            NSDecimalRound(&output, &input, 6, .plain)
            return Double("\(output)") ?? .nan  // through its text: the shortest double of that decimal
        }
        return (rounded(gross), rounded(net))
    }

    @Test func bitfinexBidsAboveHTXAsksFireWithTheExactExecutablePctAndABadChecksumResyncs() async throws {
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        try HTXBitfinexStreamIntegrationTests.serveREST(apis, .htx, path: "/market/tickers", price: "100000.00")
        try HTXBitfinexStreamIntegrationTests.serveREST(apis, .bitfinex, path: "/v2/tickers", price: "100000.00")
        let htx = try await WebSocketTestServer(persona: StreamPersonas.of(.htx)(StreamPersonaKnobs()))
        let bitfinex = try await WebSocketTestServer(persona: StreamPersonas.of(.bitfinex)(StreamPersonaKnobs()))
        try harness.writeConfig(Self.config(harness, htx: htx.url("/ws"), bitfinex: bitfinex.url("/ws/2")))
        let daemon = try harness.start()
        defer { daemon.terminate() }
        try await daemon.waitUntilRunning()
        _ = try await daemon.waitForLine("the HTX stream live", stderr: true) { $0.contains("htx stream live") }
        _ = try await daemon.waitForLine("the Bitfinex stream live", stderr: true) { $0.contains("bitfinex stream live") }
        #expect(htx.connections.first?.texts.contains(#"{"sub":"market.btcusdt.depth.step0","id":"market.btcusdt.depth.step0"}"#) == true)
        #expect(bitfinex.connections.first?.texts.first == #"{"event":"conf","flags":131072}"#)
        #expect(bitfinex.connections.first?.texts.contains(#"{"event":"subscribe","channel":"book","symbol":"tBTCUST","prec":"P0","freq":"F0","len":"25"}"#) == true)

        // HTX asks from 100,010; Bitfinex bids from 100,590.
        htx.push(binary: Self.htxBBO(mid: 100_000))
        htx.push(binary: Self.htxDepth(mid: 100_000, version: 1))
        bitfinex.push(Self.bitfinexSnapshot(mid: 100_600))
        bitfinex.push("[\(Self.bookChannel),\"cs\",\(Self.bitfinexChecksum(mid: 100_600))]")
        let firing = try await daemon.waitForEvent("the executable premium") { $0.key == "premium/executable/BTC" && $0.status == "firing" }
        let executable = try #require(firing.premium?.executable)
        let expected = Self.expectedPct(buyAsks: Self.prices(100_000, bid: false), sellBids: Self.prices(100_600, bid: true))
        #expect(executable.buy.exchange == "htx" && executable.sell.exchange == "bitfinex")
        #expect(executable.buy.market == "btcusdt" && executable.sell.market == "tBTCUST")
        #expect(executable.buy.levels == 2 && executable.sell.levels == 2)
        #expect(executable.buy.feePct == 0.2 && executable.sell.feePct == 0.2)
        #expect(executable.grossPct == expected.gross, "\(executable.grossPct) vs \(expected.gross)")
        #expect(executable.netPct == expected.net, "\(executable.netPct) vs \(expected.net)")
        #expect(firing.premium?.pct == expected.net)

        // A Bitfinex checksum that cannot hold: counted, and a replacement connection subscribes the book again.
        bitfinex.push("[\(Self.bookChannel),\"cs\",7]")
        try await pollUntil("a replacement Bitfinex connection subscribed") {
            bitfinex.connections.count == 2 && bitfinex.connections[1].texts.contains { $0.contains(#""channel":"book""#) }
        }
        let api = try await DaemonAPI.connect(to: daemon)
        #expect(try await api.metrics().value("marketalertd_book_resyncs_total", ["exchange": "bitfinex", "reason": "checksum"]) == 1)
        try await Task.sleep(for: .milliseconds(200))  // the replacement's answers first
        bitfinex.push(Self.bitfinexSnapshot(mid: 100_600), to: bitfinex.connections[1].id)

        // HTX's book comes up to Bitfinex's: the premium clears.
        htx.push(binary: Self.htxBBO(mid: 100_600))
        htx.push(binary: Self.htxDepth(mid: 100_600, version: 2))
        let clear = try await daemon.waitForEvent("the clear") { $0.key == "premium/executable/BTC" && $0.status == "resolved" }
        // Cleared by the books (no premium left to take), not by the resync in between.
        let left = Self.expectedPct(buyAsks: Self.prices(100_600, bid: false), sellBids: Self.prices(100_600, bid: true))
        #expect(clear.premium?.pct == left.net, "\(String(describing: clear.premium?.pct)) vs \(left.net)")
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0)
        await htx.shutdown()
        await bitfinex.shutdown()
    }
}
