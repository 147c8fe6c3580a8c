import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// The built daemon with a `basis: depth` rule over Gate and KuCoin, both on local stream servers speaking
/// their protocols (KuCoin reached through its bullet): each book is seeded from the REST snapshot the daemon
/// fetches from its (local) REST API when the first diff arrives, then moved by `spot.order_book_update` and
/// `/market/level2` diffs. KuCoin's bids above Gate's asks fire the rule with `premium.executable` (buy on
/// Gate, sell on KuCoin) at exactly the pct a plain decimal computation of the trade gives; a Gate gap is
/// counted in `marketalertd_book_resyncs_total` and the book rebuilt; the premium clears when KuCoin's bids
/// fall back. The same trade with Coinone's KRW book as the sell side (whole-book `ORDERBOOK` pushes) goes
/// through the official USD/KRW rate.
@Suite(.serialized, .enabled(if: DaemonProcess.binaryExists, "needs the built marketalertd binary (swift build)"))
struct GateKuCoinDepthBookIntegrationTests {
    static func config(_ harness: DaemonHarness, gate: URL) -> String {
        let base = harness.apis.baseURL
        return """
            state_dir: \(harness.stateDirectory)
            exchanges:
              gate:   { poll_interval: 5s, timeout: 2s, base_url: "\(base)", stream_url: "\(gate.absoluteString)", stale_after: 30s, taker_fee_pct: 0.1 }
              kucoin: { poll_interval: 5s, timeout: 2s, base_url: "\(base)", stale_after: 30s, taker_fee_pct: 0.15 }
            premium:
              max_quote_age: 30s
              rules:
                - name: executable
                  assets: [BTC]
                  exchanges: [gate, kucoin]
                  quotes: [USDT]
                  basis: depth
                  notional: 10000
                  levels:
                    - { pct: 0.3, severity: warning }
                  clear_pct: 0.2
            sinks:
              stdout: { format: json }
              journal: { enabled: false }
            http:
              listen: "127.0.0.1:0"
            """
    }

    static var nowMillis: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// Gate's asks: 0.05 BTC at 99,000 and 0.05 at 101,000 (10,000 USDT buy exactly 0.1 BTC over 2 levels),
    /// then 0.5 at 102,000; bids from 98,000 down.
    static func gateSnapshot(id: Int) -> String {
        #"{"id":\#(id),"current":\#(nowMillis),"update":\#(nowMillis),"asks":[["99000","0.05"],["101000","0.05"],["102000","0.5"]],"bids":[["98000","0.5"],["97000","0.5"]]}"#
    }

    static func gateDiff(_ first: Int, _ final: Int, bids: String = "[]", asks: String = "[]") -> String {
        #"{"time":\#(nowMillis / 1000),"time_ms":\#(nowMillis),"channel":"spot.order_book_update","event":"update","result":{"t":\#(nowMillis),"e":"depthUpdate","E":\#(nowMillis / 1000),"s":"BTC_USDT","U":\#(first),"u":\#(final),"b":\#(bids),"a":\#(asks)}}"#
    }

    /// KuCoin's bids: 0.06 BTC at 100,900 and 0.06 at 100,800 (0.1 BTC sells over 2 levels); asks from 103,000.
    static func kucoinSnapshot(sequence: Int) -> String {
        #"{"code":"200000","data":{"time":\#(nowMillis),"sequence":"\#(sequence)","bids":[["100900","0.06"],["100800","0.06"],["95000","1"]],"asks":[["103000","1"],["104000","1"]]}}"#
    }

    static func kucoinChange(_ first: Int, _ final: Int, bids: String = "[]", asks: String = "[]") -> String {
        #"{"type":"message","topic":"/market/level2:BTC-USDT","subject":"trade.l2update","data":{"sequenceStart":\#(first),"sequenceEnd":\#(final),"symbol":"BTC-USDT","changes":{"asks":\#(asks),"bids":\#(bids)},"time":\#(nowMillis)}}"#
    }

    /// The trade in exact decimals: 10,000 USDT buy 0.1 BTC on Gate; 0.06 × 100,900 + 0.04 × 100,800 on KuCoin.
    static let proceeds = Decimal(string: "0.06")! * 100_900 + Decimal(string: "0.04")! * 100_800
    static let grossPct = (proceeds / 10_000 - 1) * 100
    static let netPct = (proceeds * (1 - Decimal(string: "0.0015")!) / (10_000 * (1 + Decimal(string: "0.001")!)) - 1) * 100

    /// `value` rounded to the schema's 6 decimals.
    static func sixDecimals(_ value: Decimal) -> Double {
        var input = value
        var rounded = Decimal()
        NSDecimalRound(&rounded, &input, 6, .plain)
        return NSDecimalNumber(decimal: rounded).doubleValue
    }

    @Test func kucoinBidsAboveGateAsksFireWithTheExactExecutablePremiumAndAGateGapResyncs() async throws {
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        try CoinoneGateKuCoinStreamIntegrationTests.serveREST(apis, .gate, paths: [GateTickerSource.path], price: "100000.00", quote: "USDT")
        try CoinoneGateKuCoinStreamIntegrationTests.serveREST(apis, .kucoin, paths: [KuCoinTickerSource.path], price: "100000.00", quote: "USDT")
        let gateID = LockedInt(100)
        apis.server.route("/api/v4/spot/order_book") { _ in .json(Self.gateSnapshot(id: gateID.value)) }
        apis.server.route(KuCoinStream.snapshotPath) { _ in .json(Self.kucoinSnapshot(sequence: 500)) }
        let gate = try await WebSocketTestServer(persona: StreamPersonas.of(.gate)(StreamPersonaKnobs()))
        let kucoin = try await WebSocketTestServer(persona: StreamPersonas.of(.kucoin)(StreamPersonaKnobs()))
        let bullet = KuCoinWire.bullet(endpoint: kucoin.url("/").absoluteString, token: CoinoneGateKuCoinStreamIntegrationTests.token)
        apis.server.route(KuCoinStream.bulletPath) { request in
            request.method == "POST" ? .json(bullet) : .json(#"{"code":"400001","msg":"method not allowed"}"#, status: 405)
        }
        try harness.writeConfig(Self.config(harness, gate: gate.url("/ws/v4/")))
        let daemon = try harness.start()
        defer { daemon.terminate() }
        try await daemon.waitUntilRunning()
        _ = try await daemon.waitForLine("the Gate stream live", stderr: true) { $0.contains("gate stream live") }
        _ = try await daemon.waitForLine("the KuCoin stream live", stderr: true) { $0.contains("kucoin stream live") }
        #expect(gate.connections.first?.texts.contains { $0.contains(#""channel":"spot.order_book_update","event":"subscribe","payload":["BTC_USDT","100ms"]"#) } == true)
        #expect(kucoin.connections.first?.texts.contains { $0.contains(#""topic":"/market/level2:BTC-USDT""#) } == true)

        // The first diff of each asks for its snapshot, which it straddles.
        gate.push(Self.gateDiff(100, 101, bids: #"[["90000","1"]]"#))
        kucoin.push(Self.kucoinChange(500, 501, asks: #"[["105000","1","501"]]"#))
        try await pollUntil("both snapshots fetched") {
            !apis.server.requests(to: "/api/v4/spot/order_book").isEmpty && !apis.server.requests(to: KuCoinStream.snapshotPath).isEmpty
        }
        #expect(apis.server.requests(to: "/api/v4/spot/order_book").first?.query == "currency_pair=BTC_USDT&limit=100&with_id=true")
        #expect(apis.server.requests(to: KuCoinStream.snapshotPath).first?.query == "symbol=BTC-USDT")

        let firing = try await daemon.waitForEvent("the executable premium") { $0.key == "premium/executable/BTC" && $0.status == "firing" }
        let premium = try #require(firing.premium)
        let executable = try #require(premium.executable)
        #expect(executable.buy.exchange == "gate" && executable.sell.exchange == "kucoin")
        #expect(executable.buy.market == "BTC_USDT" && executable.sell.market == "BTC-USDT")
        #expect(executable.notional == 10_000 && executable.quantity == Decimal(string: "0.1"))
        #expect(executable.buy.levels == 2 && executable.sell.levels == 2)
        #expect(executable.buy.vwap == 100_000 && executable.sell.vwap == 100_860)
        #expect(executable.buy.feePct == 0.1 && executable.sell.feePct == 0.15)
        #expect(abs(executable.grossPct - Self.sixDecimals(Self.grossPct)) < 1e-9, "\(executable.grossPct)")  // 0.86
        #expect(abs(executable.netPct - Self.sixDecimals(Self.netPct)) < 1e-9, "\(executable.netPct)")  // 0.608102
        #expect(abs(premium.pct - Self.sixDecimals(Self.netPct)) < 1e-9, "\(premium.pct)")

        // A Gate gap: counted, the book rebuilt from a fresh snapshot (now at 200).
        gateID.set(200)
        gate.push(Self.gateDiff(200, 201))
        try await pollUntil("Gate's second snapshot") { apis.server.requests(to: "/api/v4/spot/order_book").count == 2 }
        let api = try await DaemonAPI.connect(to: daemon)
        #expect(try await api.metrics().value("marketalertd_book_resyncs_total", ["exchange": "gate", "reason": "sequence_gap"]) == 1)

        // KuCoin's two best bids are taken: the premium clears.
        kucoin.push(Self.kucoinChange(502, 503, bids: #"[["100900","0","502"],["100800","0","503"]]"#))
        _ = try await daemon.waitForEvent("the clear") { $0.key == "premium/executable/BTC" && $0.status == "resolved" }
        #expect(daemon.events.filter { $0.key == "premium/executable/BTC" && $0.status == "firing" }.count == 1)
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0)
        await gate.shutdown()
        await kucoin.shutdown()
    }

    static func coinoneConfig(_ harness: DaemonHarness, gate: URL, coinone: URL) -> String {
        let base = harness.apis.baseURL
        return """
            state_dir: \(harness.stateDirectory)
            exchanges:
              gate:    { poll_interval: 5s, timeout: 2s, base_url: "\(base)", stream_url: "\(gate.absoluteString)", stale_after: 30s, taker_fee_pct: 0.1 }
              coinone: { poll_interval: 5s, timeout: 2s, base_url: "\(base)", stream_url: "\(coinone.absoluteString)", stale_after: 30s, taker_fee_pct: 0.2 }
            premium:
              max_quote_age: 30s
              rules:
                - name: kimchi-depth
                  assets: [BTC]
                  exchanges: [gate, coinone]
                  quotes: [USDT, KRW]
                  basis: depth
                  notional: 10000
                  levels:
                    - { pct: 0.3, severity: warning }
                  clear_pct: 0.2
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

    /// A Coinone `ORDERBOOK` push (the whole book) of KRW levels.
    static func coinoneBook(id: Int, bids: [(String, String)], asks: [(String, String)]) -> String {
        func side(_ levels: [(String, String)]) -> String { levels.map { #"{"price":"\#($0.0)","qty":"\#($0.1)"}"# }.joined(separator: ",") }
        return #"{"response_type":"DATA","channel":"ORDERBOOK","data":{"quote_currency":"KRW","target_currency":"BTC","timestamp":\#(nowMillis),"id":"\#(id)","asks":[\#(side(asks))],"bids":[\#(side(bids))]}}"#
    }

    /// Coinone's KRW bids are KuCoin's above at 1,400 KRW a USD (141,260,000 = 100,900 × 1,400): the same trade,
    /// its sell leg converted from KRW at the official rate, with Coinone's 0.2% fee.
    static let coinoneNetPct = (proceeds * (1 - Decimal(string: "0.002")!) / (10_000 * (1 + Decimal(string: "0.001")!)) - 1) * 100

    @Test func coinoneKRWBidsAboveGateAsksFireWithTheExactExecutablePremiumThroughTheOfficialRate() async throws {
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        try CoinoneGateKuCoinStreamIntegrationTests.serveREST(apis, .gate, paths: [GateTickerSource.path], price: "100000.00", quote: "USDT")
        try CoinoneGateKuCoinStreamIntegrationTests.serveREST(apis, .coinone, paths: [CoinoneTickerSource.path], price: "140000000", quote: "KRW")
        apis.server.route("/api/v4/spot/order_book") { _ in .json(Self.gateSnapshot(id: 100)) }
        let gate = try await WebSocketTestServer(persona: StreamPersonas.of(.gate)(StreamPersonaKnobs()))
        let coinone = try await WebSocketTestServer(persona: StreamPersonas.of(.coinone)(StreamPersonaKnobs()))
        try harness.writeConfig(Self.coinoneConfig(harness, gate: gate.url("/ws/v4/"), coinone: coinone.url("/")))
        let daemon = try harness.start()
        defer { daemon.terminate() }
        try await daemon.waitUntilRunning()
        _ = try await daemon.waitForLine("the Gate stream live", stderr: true) { $0.contains("gate stream live") }
        _ = try await daemon.waitForLine("the Coinone stream live", stderr: true) { $0.contains("coinone stream live") }
        #expect(coinone.connections.first?.texts.contains(#"{"request_type":"SUBSCRIBE","channel":"ORDERBOOK","topic":{"quote_currency":"KRW","target_currency":"BTC"}}"#) == true)

        gate.push(Self.gateDiff(100, 101))
        coinone.push(Self.coinoneBook(
            id: 1, bids: [("141260000", "0.06"), ("141120000", "0.06"), ("130000000", "1")], asks: [("150000000", "1")]))
        let firing = try await daemon.waitForEvent("the executable premium") { $0.key == "premium/kimchi-depth/BTC" && $0.status == "firing" }
        let premium = try #require(firing.premium)
        let executable = try #require(premium.executable)
        #expect(executable.buy.exchange == "gate" && executable.sell.exchange == "coinone")
        #expect(executable.sell.market == "BTC" && executable.sell.levels == 2 && executable.sell.vwap == 141_204_000)
        #expect(executable.sell.vwapRef == Decimal(string: "100860") && executable.sell.feePct == 0.2)
        #expect(executable.quantity == Decimal(string: "0.1") && executable.buy.levels == 2)
        #expect(abs(executable.grossPct - Self.sixDecimals(Self.grossPct)) < 1e-9, "\(executable.grossPct)")  // 0.86
        #expect(abs(executable.netPct - Self.sixDecimals(Self.coinoneNetPct)) < 1e-9, "\(executable.netPct)")
        #expect(abs(premium.pct - Self.sixDecimals(Self.coinoneNetPct)) < 1e-9, "\(premium.pct)")

        // A late push (an older id) changes nothing; a newer book with lower bids clears the premium.
        coinone.push(Self.coinoneBook(id: 0, bids: [("130000000", "1")], asks: [("150000000", "1")]))
        coinone.push(Self.coinoneBook(id: 2, bids: [("138000000", "1")], asks: [("150000000", "1")]))
        _ = try await daemon.waitForEvent("the clear") { $0.key == "premium/kimchi-depth/BTC" && $0.status == "resolved" }
        #expect(daemon.events.filter { $0.key == "premium/kimchi-depth/BTC" && $0.status == "firing" }.count == 1)
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0)
        await gate.shutdown()
        await coinone.shutdown()
    }
}
