import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// Issue #28's whole market beyond the Korean venues, through the built daemon: OKX's and Kraken's market
/// lists and bulk 24 h volumes come from local peers speaking their real APIs (`MockVenues`: OKX
/// `/api/v5/public/instruments` and `/api/v5/market/tickers`, Kraken `/0/public/AssetPairs` and
/// `/0/public/Ticker`), Upbit's from the mock APIs. An `assets: all` rule over the three watches the assets
/// liquid on at least two of them; a `listings:` poll of OKX notices a new instrument once.
@Suite(.serialized, .enabled(if: DaemonProcess.binaryExists, "needs the built marketalertd binary (swift build)"))
struct GlobalMarketListsIntegrationTests {
    static func usdt(_ base: String) -> MarketPair { MarketPair(base: base, quote: "USDT") }
    static func usd(_ base: String) -> MarketPair { MarketPair(base: base, quote: "USD") }

    func config(_ harness: DaemonHarness, _ venues: MockVenues) -> String {
        let base = harness.apis.baseURL
        let global = venues.exchangesYAML([.okx, .kraken], pollInterval: { _ in "1s" }, streaming: false)
        return """
            state_dir: \(harness.stateDirectory)
            exchanges:
            \(global)
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
                - name: whole-market
                  assets: all
                  min_exchanges: 2
                  exclude_assets: [USDT]
                  min_volume_24h: 1
                  exchanges: [okx, kraken, upbit]
                  quotes: [KRW, USDT, USD]
                  levels:
                    - { pct: 3.0, severity: warning }
                  clear_pct: 2.5
            listings:
              exchanges: [okx]
              quotes: [USDT]
              poll_interval: 250ms
            sinks:
              stdout: { format: json }
              journal: { enabled: false }
            http:
              listen: "127.0.0.1:0"
            """
    }

    @Test func assetsAllOverOKXKrakenAndUpbitAndAnOKXListingNotifiedOnce() async throws {
        let apis = try await MockMarketAPIs()
        let venues = try await MockVenues()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        // Upbit lists BTC (liquid) and XRP with 700 won a day (0.5 USD: below the 1 USD floor), NEWCOIN and USDT.
        let upbit = AssetsAllIntegrationTests.Upbit()
        upbit.set("KRW-ETH", volume: nil)
        upbit.set("KRW-XRP", volume: 700)
        let row = try Fixtures.data("upbit/ticker-KRW-BTC-ETH.json")
        apis.server.route("/v1/market/all") { _ in .json(upbit.listBody) }
        apis.server.route("/v1/ticker/all") { _ in .data(upbit.tickerBody(template: row)) }
        apis.setFX { $0.dunamuRate = "1400.00"; $0.dunamuAt = Date() }
        apis.set("upbit", "BTC", "140000000")
        // Every peer market trades one unit a day: OKX's `volCcy24h` is 1 USDT, Kraken's volume is one unit at
        // its price (`v` × `p`), so Kraken's DOGE at 0.1 USD is illiquid while OKX's is not. ETH is listed on
        // OKX and Kraken only, 4% dearer on Kraken.
        for (asset, price) in [("BTC", "100000"), ("ETH", "3000"), ("SOL", "150"), ("XRP", "2"), ("DOGE", "0.1")] {
            venues.set(.okx, Self.usdt(asset), price)
        }
        for (asset, price) in [("BTC", "100000"), ("ETH", "3120"), ("DOGE", "0.1")] { venues.set(.kraken, Self.usd(asset), price) }
        try harness.writeConfig(config(harness, venues))
        let daemon = try harness.start()
        defer { daemon.terminate() }
        try await daemon.waitUntilRunning()

        let eth = try await daemon.waitForEvent("ETH firing") { $0.key == "premium/whole-market/ETH" && $0.status == "firing" }
        #expect(eth.premium?.high.exchange == "kraken" && eth.premium?.low.exchange == "okx")
        #expect(abs((eth.premium?.pct ?? .nan) - 4) < 1e-9, "\(eth.premium?.pct ?? .nan)")
        let api = try await DaemonAPI.connect(to: daemon)
        let status = try JSONSerialization.jsonObject(with: try await api.get("/api/v1/status").body) as? [String: Any]
        // BTC is on all three, ETH on two; SOL on OKX only, XRP and DOGE liquid on one exchange each, NEWCOIN
        // on Upbit only, USDT excluded.
        #expect((status?["rules"] as? [[String: Any]])?.first?["assets"] as? [String] == ["BTC", "ETH"])
        let instruments = try #require(venues.rest.requests(to: "/api/v5/public/instruments").first)
        #expect(instruments.query?.contains("instType=SPOT") == true, "\(instruments.query ?? "")")
        #expect(!venues.rest.requests(to: "/0/public/AssetPairs").isEmpty)

        // The first listings poll recorded what OKX lists and notified nothing; NEW-USDT is then listed once.
        let polls: @Sendable () -> Int = { venues.rest.requests(to: "/api/v5/public/instruments").count }
        try await daemon.waitUntil("three polls of OKX's instruments") { polls() >= 3 }
        #expect(!daemon.events.contains { $0.kind == .listing }, "the first run notifies nothing")
        venues.set(.okx, Self.usdt("NEW"), "1")
        let listed = try await daemon.waitForEvent("NEW-USDT listed") { $0.key == "listing/okx/NEW-USDT" }
        #expect(listed.status == "listed" && listed.listing?.asset == "NEW" && listed.listing?.quote == "USDT")
        let after = polls()
        try await daemon.waitUntil("three more polls") { polls() >= after + 3 }
        #expect(daemon.events.filter { $0.kind == .listing }.map(\.key) == ["listing/okx/NEW-USDT"])
        #expect(Set(daemon.events.filter { $0.kind != .listing }.map(\.key)) == ["premium/whole-market/ETH"])
        #expect(try await SchemaValidator.validateAlertEvents(daemon.stdoutLines) == [])
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0)
        await venues.shutdown()
    }
}
