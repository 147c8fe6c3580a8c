import Foundation
import MarketAlertCore
import MarketAlertTestSupport
import Synchronization
import Testing

/// Issue #28 through the built daemon against local servers speaking Upbit's, Bithumb's, Binance's and
/// Dunamu's APIs: the kimchi premium on both KRW bases (`krw_via`), the tether premium with its plausibility
/// guard and failover, and `listings:` (first run silent, listed and delisted once, an empty list a source
/// failure, a listing while the daemon was down notified once after the restart, never twice).
@Suite(.serialized, .enabled(if: DaemonProcess.binaryExists, "needs the built marketalertd binary (swift build)"))
struct KRWBasesListingsIntegrationTests {
    /// The market lists the mock serves (`/v1/market/all` for Upbit, `/api/v3/exchangeInfo` for Binance).
    final class Lists: Sendable {
        private let upbit = Mutex<[String]>(["KRW-BTC", "KRW-ETH", "KRW-USDT", "BTC-ETH", "USDT-BTC"])
        private let binance = Mutex<[(String, String, String, String)]>([
            ("BTCUSDT", "TRADING", "BTC", "USDT"), ("ETHUSDT", "TRADING", "ETH", "USDT"), ("LUNAUSDT", "BREAK", "LUNA", "USDT"),
        ])

        func setUpbit(_ markets: [String]) { upbit.withLock { $0 = markets } }

        /// Upbit's row shape, as recorded (`Tests/Fixtures/upbit/market-all-row-coincenter.json`).
        var upbitBody: String {
            let rows = upbit.withLock { $0 }.map {
                #"{"market_warning":"NONE","market":"\#($0)","korean_name":"코인","english_name":"Coin"}"#
            }
            return "[" + rows.joined(separator: ",") + "]"
        }

        /// Binance's `exchangeInfo` shape, as recorded (`Tests/Fixtures/binance/exchangeInfo-20180312-gobinance.json`).
        var binanceBody: String {
            let rows = binance.withLock { $0 }.map { symbol, status, base, quote in
                #"{"symbol":"\#(symbol)","status":"\#(status)","baseAsset":"\#(base)","baseAssetPrecision":8,"quoteAsset":"\#(quote)","quotePrecision":8,"orderTypes":["LIMIT","MARKET"],"icebergAllowed":true,"filters":[]}"#
            }
            return #"{"timezone":"UTC","serverTime":1520893381431,"rateLimits":[],"exchangeFilters":[],"symbols":["# + rows.joined(separator: ",") + "]}"
        }
    }

    func config(_ harness: DaemonHarness) -> String {
        let base = harness.apis.baseURL
        return """
            state_dir: \(harness.stateDirectory)
            exchanges:
              binance: { poll_interval: 250ms, timeout: 2s, base_url: "\(base)" }
              upbit:   { poll_interval: 250ms, timeout: 2s, base_url: "\(base)" }
              bithumb: { poll_interval: 250ms, timeout: 2s, base_url: "\(base)" }
            fx:
              poll_interval: 500ms
              providers:
                - name: dunamu
                  base_url: "\(base)"
              alerts:
                - pair: USDT/KRW
                  premium_pct: 3.0
              usdt_krw:
                exchanges: [upbit, bithumb]
            premium:
              reference: USD
              stablecoins_as: { USDT: USD }
              max_quote_age: 30s
              rules:
                - name: kimchi
                  assets: [BTC]
                  exchanges: [upbit, binance]
                  quotes: [KRW, USDT]
                  levels:
                    - { pct: 3.0, severity: warning }
                    - { pct: 5.0, severity: critical }
                  clear_pct: 2.5
                - name: kimchi-usdt
                  assets: [BTC]
                  exchanges: [upbit, binance]
                  quotes: [KRW, USDT]
                  krw_via: usdt
                  levels:
                    - { pct: 3.0, severity: warning }
                    - { pct: 5.0, severity: critical }
                  clear_pct: 2.5
            listings:
              exchanges: [upbit, binance]
              quotes: [KRW, USDT]
              poll_interval: 250ms
            sinks:
              stdout: { format: json }
              journal: { enabled: false }
            source_alerts: { after_failures: 2, after_silence: 10m }
            http:
              listen: "127.0.0.1:0"
            """
    }

    func start(_ harness: DaemonHarness, lists: Lists) throws -> DaemonProcess {
        harness.apis.server.route("/v1/market/all") { _ in .json(lists.upbitBody) }
        harness.apis.server.route("/api/v3/exchangeInfo") { _ in .json(lists.binanceBody) }
        try harness.writeConfig(config(harness))
        return try harness.start()
    }

    @Test func bothBasesTheTetherPremiumAndATenfoldPrint() async throws {
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        apis.setFX { $0.dunamuRate = "1400.00"; $0.dunamuAt = Date() }
        apis.set("binance", "BTC", "100000.00")
        apis.set("upbit", "BTC", "145600000")
        apis.set("upbit", "USDT", "1456")
        apis.set("bithumb", "USDT", "1460")
        let daemon = try start(harness, lists: Lists())
        defer { daemon.terminate() }
        try await daemon.waitUntilRunning()

        // USD/KRW 1400: 145,600,000 / 1400 = 104,000 USD, 4% over binance → the usd_fx rule fires.
        // USDT/KRW 1456 (upbit): 145,600,000 / 1456 = 100,000 USD, 0% → the usdt rule stays quiet.
        let usdFX = try await daemon.waitForEvent("kimchi on usd_fx") { $0.key == "premium/kimchi/BTC" && $0.status == "firing" }
        let bases = try #require(usdFX.premium?.bases)
        #expect(bases.krwVia == .usdFx)
        let fourPct: Double = (145_600_000.0 / 1400 / 100_000 - 1) * 100
        let reportedFX: Double = bases.usdFxPct ?? .nan
        let reportedUSDT: Double = bases.usdtPct ?? .nan
        #expect(abs(reportedFX - fourPct) < 1e-6)
        #expect(abs(reportedUSDT) < 1e-6)
        #expect(bases.usdKrw == Decimal(1400) && bases.usdtKrw == Decimal(1456))
        #expect(abs((usdFX.premium?.pct ?? 0) - 4) < 1e-6)
        // The tether premium: 1456 / 1400 − 1 = 4% ≥ 3%.
        let tether = try await daemon.waitForEvent("tether premium") { $0.key == "fx/USDT-KRW" && $0.status == "firing" }
        #expect(tether.fx?.pair == "USDT/KRW" && tether.fx?.provider == "upbit" && tether.fx?.rate == Decimal(1456))
        let tetherPct: Double = (1456.0 / 1400 - 1) * 100
        let reportedTether: Double = tether.fx?.premiumPct ?? 0
        #expect(abs(reportedTether - tetherPct) < 1e-6)

        // 153,608,000 KRW: 105,500 USD on USDT/KRW (5.5%, critical on the usdt rule), 109,720 on USD/KRW.
        apis.set("upbit", "BTC", "153608000")
        let usdt = try await daemon.waitForEvent("kimchi on usdt") { $0.key == "premium/kimchi-usdt/BTC" && $0.status == "firing" }
        #expect(usdt.severity == .critical)
        let usdtPct: Double = (153_608_000.0 / 1456 / 100_000 - 1) * 100
        let usdFXPct: Double = (153_608_000.0 / 1400 / 100_000 - 1) * 100
        let reportedPct: Double = usdt.premium?.pct ?? 0
        let reportedOther: Double = usdt.premium?.bases?.usdFxPct ?? .nan
        #expect(abs(reportedPct - usdtPct) < 1e-6)
        #expect(usdt.premium?.bases?.krwVia == .usdt)
        #expect(abs(reportedOther - usdFXPct) < 1e-6)
        #expect(usdt.premium?.fx.map { "\($0.pair) \($0.provider)" } == ["USDT/KRW upbit"])
        #expect(usdt.premium?.high.priceRef == Decimal(105_500))

        // Back under 80% of 3%: the tether premium resolves.
        apis.set("upbit", "USDT", "1420")
        try await daemon.waitForEvent("tether premium resolved") { $0.key == "fx/USDT-KRW" && $0.status == "resolved" }

        // Upbit prints USDT 10× off: a data error, not a 914% tether premium; bithumb's 1460 serves instead.
        apis.set("upbit", "USDT", "14200")
        let failover = try await daemon.waitForEvent("tether premium from bithumb") { $0.key == "fx/USDT-KRW" && $0.status == "firing" && $0.fx?.provider == "bithumb" }
        let bithumbPct: Double = (1460.0 / 1400 - 1) * 100
        let reportedFailover: Double = failover.fx?.premiumPct ?? 0
        #expect(abs(reportedFailover - bithumbPct) < 1e-6)
        let absurd = daemon.events.filter { event in
            let fxPct: Double = event.fx?.premiumPct ?? 0
            let premiumPct: Double = event.premium?.pct ?? 0
            return fxPct > 50 || premiumPct > 50
        }
        #expect(absurd.isEmpty, "\(absurd.map(\.summary))")

        // The API and /metrics show both bases and the tether premium.
        let api = try await DaemonAPI.connect(to: daemon)
        let status = try await api.request(.GET, "/api/v1/status").json
        let fx = status["fx"] as? [[String: Any]] ?? []
        let usdtRow = try #require(fx.first { $0["pair"] as? String == "USDT/KRW" })
        #expect(usdtRow["provider"] as? String == "bithumb")
        let rowPct: Double = usdtRow["premium_pct"] as? Double ?? 0
        #expect(abs(rowPct - bithumbPct) < 1e-5)
        let premium = status["premium"] as? [[String: Any]] ?? []
        let row = try #require(premium.first { $0["rule"] as? String == "kimchi-usdt" })
        let rowBases = try #require(row["bases"] as? [String: Any])
        #expect(rowBases["krw_via"] as? String == "usdt")
        let onBithumb: Double = (153_608_000.0 / 1460 / 100_000 - 1) * 100
        let rowUSDT: Double = rowBases["usdt_pct"] as? Double ?? 0
        #expect(abs(rowUSDT - onBithumb) < 1e-5)
        let page = try await api.request(.GET, "/").text
        #expect(page.contains("(usd_fx ") && page.contains(" · usdt "), "the premium rows show both bases")
        #expect(page.contains("USDT/KRW (tether premium +"), "the FX table shows USDT/KRW with its premium")
        let metrics = try await api.request(.GET, "/metrics").text
        #expect(metrics.contains("marketalertd_usdt_krw_premium_pct{provider=\"bithumb\"}"), "\(metrics)")
        #expect(try await SchemaValidator.validateAlertEvents(daemon.stdoutLines) == [])
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0)
    }

    @Test func listingsFirstRunSilentThenOnceEachAcrossARestart() async throws {
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        apis.set("binance", "BTC", "100000.00")
        apis.set("upbit", "BTC", "140000000")
        apis.set("upbit", "USDT", "1400")
        apis.set("bithumb", "USDT", "1400")
        let lists = Lists()
        let polls: @Sendable () -> Int = { apis.server.requests(to: "/v1/market/all").count }
        var daemon = try start(harness, lists: lists)
        defer { daemon.terminate() }
        try await daemon.waitUntilRunning()
        try await daemon.waitUntil("three polls of upbit's market list") { polls() >= 3 }
        #expect(!daemon.events.contains { $0.kind == .listing }, "the first run notifies nothing")

        lists.setUpbit(["KRW-BTC", "KRW-ETH", "KRW-USDT", "KRW-NEW", "BTC-ETH", "USDT-BTC"])
        let listed = try await daemon.waitForEvent("KRW-NEW listed") { $0.key == "listing/upbit/KRW-NEW" }
        #expect(listed.status == "listed" && listed.listing?.asset == "NEW" && listed.listing?.quote == "KRW")
        let afterListing = polls()
        try await daemon.waitUntil("three more polls") { polls() >= afterListing + 3 }

        // An empty list is a failing source, never a mass delisting.
        lists.setUpbit([])
        try await daemon.waitForEvent("upbit-listings failing") { $0.key == "source/upbit-listings" && $0.status == "firing" }
        lists.setUpbit(["KRW-BTC", "KRW-ETH", "KRW-USDT", "BTC-ETH", "USDT-BTC"])
        let delisted = try await daemon.waitForEvent("KRW-NEW delisted") { $0.key == "listing/upbit/KRW-NEW" && $0.status == "delisted" }
        #expect(delisted.listing?.firstSeen == listed.listing?.firstSeen)
        let api = try await DaemonAPI.connect(to: daemon)
        let listings = try await api.request(.GET, "/api/v1/listings").json["listings"] as? [[String: Any]] ?? []
        #expect(listings.map { "\($0["market"] as? String ?? "") \($0["status"] as? String ?? "")" } == ["KRW-NEW delisted", "KRW-NEW listed"])
        #expect(daemon.events.filter { $0.kind == .listing }.map(\.status) == ["listed", "delisted"])
        let page = try await api.request(.GET, "/").text
        #expect(page.contains(#"data-listing="listing/upbit/KRW-NEW" data-status="delisted""#), "the status page lists the week's listings")
        #expect(!daemon.events.contains { $0.key.hasPrefix("listing/binance/") }, "LUNAUSDT is in BREAK: never listed")
        let asked = try #require(apis.server.requests(to: "/api/v3/exchangeInfo").first)
        let query = asked.query ?? ""
        #expect(query.contains("symbolStatus=TRADING") && query.contains("showPermissionSets=false"), "\(query)")
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0)

        // Listed while the daemon was down: notified once at the next start, and not again after another.
        lists.setUpbit(["KRW-BTC", "KRW-ETH", "KRW-USDT", "KRW-LATE", "BTC-ETH", "USDT-BTC"])
        daemon = try harness.start()
        try await daemon.waitUntilRunning()
        let late = try await daemon.waitForEvent("KRW-LATE listed after the restart") { $0.key == "listing/upbit/KRW-LATE" }
        #expect(late.status == "listed")
        let afterLate = polls()
        try await daemon.waitUntil("three more polls") { polls() >= afterLate + 3 }
        #expect(daemon.events.filter { $0.kind == .listing }.map(\.key) == ["listing/upbit/KRW-LATE"])
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0)

        daemon = try harness.start()
        try await daemon.waitUntilRunning()
        let third = polls()
        try await daemon.waitUntil("three polls after the second restart") { polls() >= third + 3 }
        #expect(!daemon.events.contains { $0.kind == .listing }, "\(daemon.events.map(\.summary))")
        #expect(try await SchemaValidator.validateAlertEvents(daemon.stdoutLines) == [])
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0)
    }
}
