import Foundation
import Synchronization
import MarketAlertCore
import MarketAlertTestSupport
import Testing

/// The built daemon with a `basis: depth` rule over Binance and Bybit, both on local stream servers speaking
/// their protocols: Binance's book is seeded from the `/api/v3/depth` snapshot the daemon fetches from its
/// (local) REST API and moved by `depth@100ms` diffs; Bybit's from its `orderbook.50` snapshot. Bybit's bids
/// above Binance's asks fire the rule with `premium.executable` (buy on Binance, sell on Bybit); a Binance
/// gap is counted in `marketalertd_book_resyncs_total` and the book is rebuilt from a fresh snapshot.
@Suite(.serialized, .enabled(if: DaemonProcess.binaryExists, "needs the built marketalertd binary (swift build)"))
struct DepthBookIntegrationTests {
    static func config(_ harness: DaemonHarness, binance: URL, bybit: URL) -> String {
        let base = harness.apis.baseURL
        return """
            state_dir: \(harness.stateDirectory)
            exchanges:
              binance: { poll_interval: 5s, timeout: 2s, base_url: "\(base)", stream_url: "\(binance.absoluteString)", stale_after: 30s }
              bybit:   { poll_interval: 5s, timeout: 2s, base_url: "\(base)", stream_url: "\(bybit.absoluteString)", stale_after: 30s }
            premium:
              max_quote_age: 30s
              rules:
                - name: executable
                  assets: [BTC]
                  exchanges: [binance, bybit]
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

    /// Five levels a side of 0.05 BTC each around `mid`, 10 USDT apart.
    static func levels(_ mid: Int, bid: Bool) -> String {
        (1...5).map { step in #"["\#(bid ? mid - 10 * step : mid + 10 * step).00","0.050"]"# }.joined(separator: ",")
    }

    static func binanceSnapshot(_ lastUpdate: Int) -> String {
        #"{"lastUpdateId":\#(lastUpdate),"bids":[\#(levels(100_000, bid: true))],"asks":[\#(levels(100_000, bid: false))]}"#
    }

    static func binanceDiff(_ first: Int, _ final: Int, bids: String = "[]", asks: String = "[]") -> String {
        #"{"e":"depthUpdate","E":\#(nowMillis),"s":"BTCUSDT","U":\#(first),"u":\#(final),"b":\#(bids),"a":\#(asks)}"#
    }

    static func bybitSnapshot(mid: Int, update: Int) -> String {
        #"{"topic":"orderbook.50.BTCUSDT","type":"snapshot","ts":\#(nowMillis),"data":{"s":"BTCUSDT","b":[\#(levels(mid, bid: true))],"a":[\#(levels(mid, bid: false))],"u":\#(update),"seq":1}}"#
    }

    @Test func bybitBidsAboveBinanceAsksFireWithTheExecutablePremiumAndAGapResyncs() async throws {
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        apis.set("binance", "BTC", "100000.00")
        apis.set("bybit", "BTC", "100000.00")
        let snapshotID = LockedInt(100)
        apis.server.route("/api/v3/depth") { _ in .json(Self.binanceSnapshot(snapshotID.value)) }
        let binance = try await WebSocketTestServer(persona: StreamPersonas.of(.binance)(StreamPersonaKnobs()))
        let bybit = try await WebSocketTestServer(persona: StreamPersonas.of(.bybit)(StreamPersonaKnobs()))
        try harness.writeConfig(Self.config(harness, binance: binance.url("/ws"), bybit: bybit.url("/v5/public/spot")))
        let daemon = try harness.start()
        defer { daemon.terminate() }
        try await daemon.waitUntilRunning()
        _ = try await daemon.waitForLine("the Binance stream live", stderr: true) { $0.contains("binance stream live") }
        _ = try await daemon.waitForLine("the Bybit stream live", stderr: true) { $0.contains("bybit stream live") }
        #expect(binance.connections.first?.texts.first?.contains("btcusdt@depth@100ms") == true)
        #expect(bybit.connections.first?.texts.first?.contains("orderbook.50.BTCUSDT") == true)

        // Binance: the first diff asks for the REST snapshot (lastUpdateId 100) and straddles it.
        binance.push(Self.binanceDiff(100, 101, asks: #"[["100010.00","0.060"]]"#))
        try await pollUntil("the depth snapshot fetched") { !apis.server.requests(to: "/api/v3/depth").isEmpty }
        #expect(apis.server.requests(to: "/api/v3/depth").first?.query == "symbol=BTCUSDT&limit=100")
        // Bybit: bids from 100,590 down, 0.59% above Binance's asks from 100,010.
        bybit.push(Self.bybitSnapshot(mid: 100_600, update: 5))
        let firing = try await daemon.waitForEvent("the executable premium") { $0.key == "premium/executable/BTC" && $0.status == "firing" }
        let executable = try #require(firing.premium?.executable)
        #expect(executable.buy.exchange == "binance" && executable.sell.exchange == "bybit")
        #expect(executable.notional == 10_000)
        #expect(executable.buy.levels == 2)  // 0.06 + 0.05 BTC at 100,010 and 100,020 cover 10,000 USDT
        #expect(executable.grossPct > 0.5 && executable.netPct < executable.grossPct)
        try await Self.expectBooksAndExecutableReads(daemon, pct: firing.premium?.pct)

        // A Binance gap: counted, the book rebuilt from a fresh snapshot (now at 200).
        snapshotID.set(200)
        binance.push(Self.binanceDiff(200, 201))
        try await pollUntil("the second snapshot") { apis.server.requests(to: "/api/v3/depth").count == 2 }
        let api = try await DaemonAPI.connect(to: daemon)
        #expect(try await api.metrics().value("marketalertd_book_resyncs_total", ["exchange": "binance", "reason": "sequence_gap"]) == 1)

        // Bybit's book falls back: the premium clears.
        bybit.push(Self.bybitSnapshot(mid: 100_000, update: 6))
        _ = try await daemon.waitForEvent("the clear") { $0.key == "premium/executable/BTC" && $0.status == "resolved" }
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0)
        await binance.shutdown()
        await bybit.shutdown()
    }
}

extension DepthBookIntegrationTests {
    /// v3 reads of the books and the trade (`http-api.md`): `GET /api/v1/book` of both exchanges' books as the
    /// test sent them (Binance's snapshot with the diff's 0.06 BTC at 100,010; Bybit's snapshot around
    /// 100,600), 404 for a market without a book, 400 without a market; `marketalertd_book_levels` and
    /// `marketalertd_executable_pct`, and `executable` on the rule's `/api/v1/status` entry.
    static func expectBooksAndExecutableReads(_ daemon: DaemonProcess, pct: Double?) async throws {
        let api = try await DaemonAPI.connect(to: daemon)
        let bybitBook = try await api.get("/api/v1/book?exchange=bybit&market=BTCUSDT")
        #expect(bybitBook.status == 200, "\(bybitBook.text)")
        let bybit = bybitBook.json
        #expect(bybit["exchange"] as? String == "bybit" && bybit["market"] as? String == "BTCUSDT")
        #expect(bybit["synced"] as? Bool == true)
        #expect(bybit["at"] is String)
        #expect(bybit["bids"] as? [[Double]] == (1...5).map { [Double(100_600 - 10 * $0), 0.05] })
        #expect(bybit["asks"] as? [[Double]] == (1...5).map { [Double(100_600 + 10 * $0), 0.05] })
        let binance = try await api.get("/api/v1/book?exchange=binance&market=BTCUSDT").json
        #expect(binance["synced"] as? Bool == true)
        #expect(binance["asks"] as? [[Double]] == [[100_010, 0.06]] + (2...5).map { [Double(100_000 + 10 * $0), 0.05] })
        #expect(binance["bids"] as? [[Double]] == (1...5).map { [Double(100_000 - 10 * $0), 0.05] })
        #expect(try await api.get("/api/v1/book?exchange=bybit&market=ETHUSDT").status == 404)
        #expect(try await api.get("/api/v1/book?exchange=bybit").status == 400)

        let metrics = try await api.metrics()
        for (exchange, side) in [("binance", "bid"), ("binance", "ask"), ("bybit", "bid"), ("bybit", "ask")] {
            #expect(metrics.value("marketalertd_book_levels", ["exchange": exchange, "market": "BTCUSDT", "side": side]) == 5)
        }
        let gauge = try #require(metrics.value("marketalertd_executable_pct", ["rule": "executable", "asset": "BTC"]))
        #expect(abs(gauge - (pct ?? .nan)) < 1e-6, "gauge \(gauge), event pct \(pct ?? .nan)")

        let premium = try #require((try await api.get("/api/v1/status").json["premium"] as? [[String: Any]])?.first)
        let trade = try #require(premium["executable"] as? [String: Any])
        #expect(trade["notional"] as? Double == 10_000)
        #expect((trade["buy"] as? [String: Any])?["exchange"] as? String == "binance")
        #expect((trade["sell"] as? [String: Any])?["exchange"] as? String == "bybit")
    }
}

/// An integer the REST route reads while the test changes it.
final class LockedInt: Sendable {
    private let state: Mutex<Int>
    init(_ value: Int) { state = Mutex(value) }
    var value: Int { state.withLock { $0 } }
    func set(_ value: Int) { state.withLock { $0 = value } }
}
