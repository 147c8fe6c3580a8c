import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// Issue #28's whole market on Gate and Coinone, through the built daemon: their market lists and bulk 24 h
/// volumes come from local peers speaking their real APIs (`MockVenues`: Gate `/api/v4/spot/currency_pairs`
/// and `/api/v4/spot/tickers`, Coinone `/public/v2/ticker_new/KRW` for both), Upbit's from the mock APIs. An
/// `assets: all` rule over the three watches every asset listed on at least two of them; a `listings:` poll of
/// Gate notices a new pair once, and a list cut short is a failing source, not a delisting.
@Suite(.serialized, .enabled(if: DaemonProcess.binaryExists, "needs the built marketalertd binary (swift build)"))
struct GateCoinoneListsIntegrationTests {
    static func usdt(_ base: String) -> MarketPair { MarketPair(base: base, quote: "USDT") }
    static func krw(_ base: String) -> MarketPair { MarketPair(base: base, quote: "KRW") }

    func config(_ harness: DaemonHarness, _ venues: MockVenues) -> String {
        let base = harness.apis.baseURL
        let peers = venues.exchangesYAML([.gate, .coinone], pollInterval: { _ in "1s" }, streaming: false)
        return """
            state_dir: \(harness.stateDirectory)
            exchanges:
            \(peers)
              upbit: { poll_interval: 250ms, timeout: 2s, base_url: "\(base)", stream: false }
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
                - name: gate-coinone-upbit
                  assets: all
                  min_exchanges: 2
                  exclude_assets: [USDT]
                  exchanges: [gate, coinone, upbit]
                  quotes: [KRW, USDT]
                  levels:
                    - { pct: 3.0, severity: warning }
                  clear_pct: 2.5
            listings:
              exchanges: [gate]
              quotes: [USDT]
              poll_interval: 250ms
            sinks:
              stdout: { format: json }
              journal: { enabled: false }
            http:
              listen: "127.0.0.1:0"
            """
    }

    @Test func assetsAllOverGateCoinoneAndUpbitAndAGateListingNotifiedOnce() async throws {
        let apis = try await MockMarketAPIs()
        let venues = try await MockVenues()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        // Upbit lists BTC (1% over Gate), ETH, XRP, NEWCOIN and USDT in KRW (and ETH in BTC); USD/KRW is 1400.
        let upbit = AssetsAllIntegrationTests.Upbit()
        let row = try Fixtures.data("upbit/ticker-KRW-BTC-ETH.json")
        apis.server.route("/v1/market/all") { _ in .json(upbit.listBody) }
        apis.server.route("/v1/ticker/all") { _ in .data(upbit.tickerBody(template: row)) }
        apis.setFX { $0.dunamuRate = "1400.00"; $0.dunamuAt = Date() }
        for (asset, krw) in [("BTC", "141400000"), ("ETH", "4368000"), ("XRP", "2800"), ("NEWCOIN", "1000"), ("USDT", "1400")] {
            apis.set("upbit", asset, krw)
        }
        // Gate lists BTC, ETH and SOL in USDT; Coinone lists BTC 4% over Gate's and XRP. ETH on Upbit is 4% over Gate's.
        for (asset, price) in [("BTC", "100000"), ("ETH", "3000"), ("SOL", "150")] { venues.set(.gate, Self.usdt(asset), price) }
        venues.set(.coinone, Self.krw("BTC"), "145600000")
        venues.set(.coinone, Self.krw("XRP"), "2800")
        try harness.writeConfig(config(harness, venues))
        let daemon = try harness.start()
        defer { daemon.terminate() }
        try await daemon.waitUntilRunning()

        let btc = try await daemon.waitForEvent("BTC firing") { $0.key == "premium/gate-coinone-upbit/BTC" && $0.status == "firing" }
        #expect(btc.premium?.high.exchange == "coinone" && btc.premium?.low.exchange == "gate", "\(String(describing: btc.premium))")
        #expect(abs((btc.premium?.pct ?? .nan) - 4) < 1e-9, "\(btc.premium?.pct ?? .nan)")
        let eth = try await daemon.waitForEvent("ETH firing") { $0.key == "premium/gate-coinone-upbit/ETH" && $0.status == "firing" }
        #expect(eth.premium?.high.exchange == "upbit" && eth.premium?.low.exchange == "gate")
        let api = try await DaemonAPI.connect(to: daemon)
        let status = try JSONSerialization.jsonObject(with: try await api.get("/api/v1/status").body) as? [String: Any]
        // BTC is on all three, ETH on Gate and Upbit, XRP on Coinone and Upbit; SOL is on Gate only, NEWCOIN on
        // Upbit only, USDT excluded.
        #expect((status?["rules"] as? [[String: Any]])?.first?["assets"] as? [String] == ["BTC", "ETH", "XRP"])
        #expect(!venues.rest.requests(to: "/api/v4/spot/currency_pairs").isEmpty)
        #expect(!venues.rest.requests(to: "/public/v2/ticker_new/KRW").isEmpty)

        // The first listings poll recorded what Gate lists and notified nothing; DOGE_USDT is then listed once.
        let polls: @Sendable () -> Int = { venues.rest.requests(to: "/api/v4/spot/currency_pairs").count }
        try await daemon.waitUntil("three polls of Gate's pairs") { polls() >= 3 }
        #expect(!daemon.events.contains { $0.kind == .listing }, "the first run notifies nothing")
        venues.set(.gate, Self.usdt("DOGE"), "0.1")
        let listed = try await daemon.waitForEvent("DOGE_USDT listed") { $0.key == "listing/gate/DOGE_USDT" }
        #expect(listed.status == "listed" && listed.listing?.asset == "DOGE" && listed.listing?.quote == "USDT")
        let after = polls()
        try await daemon.waitUntil("three more polls") { polls() >= after + 3 }
        #expect(daemon.events.filter { $0.kind == .listing }.map(\.key) == ["listing/gate/DOGE_USDT"])
        #expect(Set(daemon.events.filter { $0.kind != .listing }.map(\.key)) == ["premium/gate-coinone-upbit/BTC", "premium/gate-coinone-upbit/ETH"])

        // A list cut short is a failing source, never a mass delisting.
        venues.rest.route("/api/v4/spot/currency_pairs") { _ in .json(#"[{"id":"BTC_USDT","base":"BTC","quote":"USDT","trade_st"#) }
        try await daemon.waitForEvent("gate-listings failing") { $0.key == "source/gate-listings" && $0.status == "firing" }
        let cut = polls()
        try await daemon.waitUntil("three polls of the cut list") { polls() >= cut + 3 }
        #expect(daemon.events.filter { $0.kind == .listing }.map(\.key) == ["listing/gate/DOGE_USDT"])
        #expect(try await SchemaValidator.validateAlertEvents(daemon.stdoutLines) == [])
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0)
        await venues.shutdown()
    }
}
