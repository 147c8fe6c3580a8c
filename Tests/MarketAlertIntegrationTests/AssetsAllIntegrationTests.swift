import Foundation
import MarketAlertCore
import MarketAlertTestSupport
import Synchronization
import Testing

/// Issue #28 "Every asset" through the built daemon against local servers speaking Upbit's and Binance's
/// APIs: `assets: all` watches the assets listed in a rule quote on at least `min_exchanges` exchanges, minus
/// `exclude_assets` and the markets below `min_volume_24h` (24 h volumes from the bulk tickers, KRW through
/// USD/KRW); a reload reads the lists again: an asset that left while firing resolves quietly, one that
/// joined fires once both exchanges answered.
@Suite(.serialized, .enabled(if: DaemonProcess.binaryExists, "needs the built marketalertd binary (swift build)"))
struct AssetsAllIntegrationTests {
    /// Upbit's market list and 24 h volumes (KRW) as the mock serves them.
    final class Upbit: Sendable {
        private let markets = Mutex<[String: Double]>([
            "KRW-BTC": 140e9, "KRW-ETH": 14e9, "KRW-XRP": 700e6, "KRW-NEWCOIN": 14e9, "KRW-USDT": 28e9, "BTC-ETH": 5,
        ])

        func set(_ market: String, volume: Double?) { markets.withLock { $0[market] = volume } }

        /// `/v1/market/all` rows, as recorded (`Tests/Fixtures/upbit/market-all-row-coincenter.json`).
        var listBody: String {
            let rows = markets.withLock { $0.keys.sorted() }.map {
                #"{"market_warning":"NONE","market":"\#($0)","korean_name":"코인","english_name":"Coin"}"#
            }
            return "[" + rows.joined(separator: ",") + "]"
        }

        /// `/v1/ticker/all` rows: the recorded `/v1/ticker` row with the market and its volume.
        func tickerBody(template data: Data) -> Data {
            let parsed = (try? JSONSerialization.jsonObject(with: data)) as? [[String: Any]]
            let template = parsed?.first ?? [:]
            let rows: [[String: Any]] = markets.withLock { $0 }.sorted { $0.key < $1.key }.map { market, volume in
                var row = template
                row["market"] = market
                row["acc_trade_price_24h"] = volume
                return row
            }
            return (try? JSONSerialization.data(withJSONObject: rows)) ?? Data("[]".utf8)
        }
    }

    /// Binance's `exchangeInfo` shape, as recorded (`Tests/Fixtures/binance/exchangeInfo-20180312-gobinance.json`).
    static let binanceInfo: String = {
        let rows = ["BTC", "ETH", "XRP", "DOGE"].map { base in
            #"{"symbol":"\#(base)USDT","status":"TRADING","baseAsset":"\#(base)","baseAssetPrecision":8,"quoteAsset":"USDT","quotePrecision":8,"orderTypes":["LIMIT","MARKET"],"icebergAllowed":true,"filters":[]}"#
        }
        return #"{"timezone":"UTC","serverTime":1520893381431,"rateLimits":[],"exchangeFilters":[],"symbols":["# + rows.joined(separator: ",") + "]}"
    }()

    func config(_ harness: DaemonHarness) -> String {
        let base = harness.apis.baseURL
        return """
            state_dir: \(harness.stateDirectory)
            exchanges:
              binance: { poll_interval: 250ms, timeout: 2s, base_url: "\(base)" }
              upbit:   { poll_interval: 250ms, timeout: 2s, base_url: "\(base)" }
            fx:
              poll_interval: 500ms
              providers:
                - name: dunamu
                  base_url: "\(base)"
            premium:
              reference: USD
              stablecoins_as: { USDT: USD }
              max_quote_age: 30s
              rules:
                - name: kimchi-all
                  assets: all
                  min_exchanges: 2
                  exclude_assets: [USDT]
                  min_volume_24h: 1000000
                  exchanges: [upbit, binance]
                  quotes: [KRW, USDT]
                  levels:
                    - { pct: 3.0, severity: warning }
                  clear_pct: 2.5
            sinks:
              stdout: { format: json }
              journal: { enabled: false }
            http:
              listen: "127.0.0.1:0"
            """
    }

    @Test func assetsAllWithMinExchangesExcludedAndIlliquidAssetsAndAReload() async throws {
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        let upbit = Upbit()
        let row = try Fixtures.data("upbit/ticker-KRW-BTC-ETH.json")
        harness.apis.server.route("/v1/market/all") { _ in .json(upbit.listBody) }
        harness.apis.server.route("/v1/ticker/all") { _ in .data(upbit.tickerBody(template: row)) }
        harness.apis.server.route("/api/v3/exchangeInfo") { _ in .json(Self.binanceInfo) }
        // USD/KRW 1400; every Upbit price 4% over Binance's. Binance's 24 h volume is its recorded BTCUSDT
        // quoteVolume (1.5 billion USDT) for every symbol.
        apis.setFX { $0.dunamuRate = "1400.00"; $0.dunamuAt = Date() }
        for (asset, usd) in [("BTC", "100000"), ("ETH", "3000"), ("XRP", "2"), ("DOGE", "0.1")] { apis.set("binance", asset, usd) }
        for (asset, krw) in [("BTC", "145600000"), ("ETH", "4368000"), ("XRP", "2912"), ("NEWCOIN", "1000"), ("USDT", "1400")] {
            apis.set("upbit", asset, krw)
        }
        try harness.writeConfig(config(harness))
        let daemon = try harness.start()
        defer { daemon.terminate() }
        try await daemon.waitUntilRunning()

        // BTC (100 M USD a day on Upbit) and ETH (10 M) are watched and fire. XRP's Upbit market trades
        // 500,000 USD (below 1 M: ignored, so one exchange), NEWCOIN is on Upbit only, DOGE on Binance only,
        // USDT is excluded.
        try await daemon.waitForEvent("BTC") { $0.key == "premium/kimchi-all/BTC" && $0.status == "firing" }
        let eth = try await daemon.waitForEvent("ETH") { $0.key == "premium/kimchi-all/ETH" && $0.status == "firing" }
        let fourPct: Double = (4_368_000.0 / 1400 / 3000 - 1) * 100
        #expect(abs((eth.premium?.pct ?? 0) - fourPct) < 1e-6)
        let api = try await DaemonAPI.connect(to: daemon)
        let status = try await api.get("/api/v1/status")
        let document = try JSONSerialization.jsonObject(with: status.body) as? [String: Any]
        let rules = document?["rules"] as? [[String: Any]]
        #expect(rules?.count == 1)
        #expect(rules?.first?["name"] as? String == "kimchi-all")
        #expect(rules?.first?["assets"] as? [String] == ["BTC", "ETH"])
        let metrics = try await api.metrics()
        #expect(metrics.value("marketalertd_watched_assets", ["rule": "kimchi-all"]) == 2)

        // Upbit delists ETH and XRP trades 10 M USD now: a reload reads the lists again.
        upbit.set("KRW-ETH", volume: nil)
        upbit.set("KRW-XRP", volume: 14e9)
        try harness.writeConfig(config(harness))
        daemon.signal(SIGHUP)
        let left = try await daemon.waitForEvent("ETH resolved") { $0.key == "premium/kimchi-all/ETH" && $0.status == "resolved" }
        #expect(left.summary.contains("no longer watched"))
        try await daemon.waitForEvent("XRP") { $0.key == "premium/kimchi-all/XRP" && $0.status == "firing" }
        let after = try JSONSerialization.jsonObject(with: try await api.get("/api/v1/status").body) as? [String: Any]
        #expect((after?["rules"] as? [[String: Any]])?.first?["assets"] as? [String] == ["BTC", "XRP"])

        let keys = Set(daemon.events.map(\.key))
        #expect(keys == ["premium/kimchi-all/BTC", "premium/kimchi-all/ETH", "premium/kimchi-all/XRP"])
        #expect(daemon.events.filter { $0.key == "premium/kimchi-all/BTC" }.count == 1)
        #expect(apis.server.requests(to: "/v1/ticker/all").count >= 2)
    }
}
