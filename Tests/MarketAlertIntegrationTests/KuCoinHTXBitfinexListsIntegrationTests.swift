import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// Issue #28's whole market on KuCoin, HTX and Bitfinex, through the built daemon: their market lists and bulk
/// 24 h volumes come from local peers speaking their real APIs (`MockVenues`: KuCoin `/api/v2/symbols` and
/// `/api/v1/market/allTickers`, HTX `/v2/settings/common/symbols` and `/market/tickers`, Bitfinex
/// `/v2/conf/pub:list:pair:exchange` and `/v2/tickers?symbols=ALL`). An `assets: all` rule over the three
/// watches the assets liquid on at least two of them; a `listings:` poll of KuCoin notices a new symbol once.
@Suite(.serialized, .enabled(if: DaemonProcess.binaryExists, "needs the built marketalertd binary (swift build)"))
struct KuCoinHTXBitfinexListsIntegrationTests {
    static func usdt(_ base: String) -> MarketPair { MarketPair(base: base, quote: "USDT") }
    static func usd(_ base: String) -> MarketPair { MarketPair(base: base, quote: "USD") }

    func config(_ harness: DaemonHarness, _ venues: MockVenues) -> String {
        let peers = venues.exchangesYAML([.kucoin, .htx, .bitfinex], pollInterval: { _ in "1s" }, streaming: false)
        return """
            state_dir: \(harness.stateDirectory)
            exchanges:
            \(peers)
            premium:
              reference: USD
              stablecoins_as: { USDT: USD }
              max_quote_age: 30s
              rules:
                - name: kucoin-htx-bitfinex
                  assets: all
                  min_exchanges: 2
                  exclude_assets: [USDC]
                  min_volume_24h: 1
                  exchanges: [kucoin, htx, bitfinex]
                  quotes: [USDT, USD]
                  levels:
                    - { pct: 3.0, severity: warning }
                  clear_pct: 2.5
            listings:
              exchanges: [kucoin]
              quotes: [USDT]
              poll_interval: 250ms
            sinks:
              stdout: { format: json }
              journal: { enabled: false }
            http:
              listen: "127.0.0.1:0"
            """
    }

    @Test func assetsAllOverKuCoinHTXAndBitfinexAndAKuCoinListingNotifiedOnce() async throws {
        let apis = try await MockMarketAPIs()
        let venues = try await MockVenues()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        // Every peer market trades one unit a day. KuCoin's `volValue` and HTX's `vol` are the quote turnover,
        // 1 USDT; Bitfinex's `VOLUME` is in base units, read as `VOLUME` × `LAST_PRICE`, so its DOGE/USD at
        // 0.1 USD is the one market below the 1 USD floor, while KuCoin's DOGE-USDT is not.
        for (asset, price) in [("BTC", "100000"), ("ETH", "3000"), ("SOL", "150"), ("DOGE", "0.1"), ("USDC", "1")] {
            venues.set(.kucoin, Self.usdt(asset), price)
        }
        for (asset, price) in [("BTC", "100000"), ("XRP", "2"), ("USDC", "1")] { venues.set(.htx, Self.usdt(asset), price) }
        // Bitfinex lists BTC, XRP and DOGE in USD (`tBTCUSD`) and ETH in USDT (`tETHUST`), 4% over KuCoin's.
        for (asset, price) in [("BTC", "100000"), ("XRP", "2"), ("DOGE", "0.1")] { venues.set(.bitfinex, Self.usd(asset), price) }
        venues.set(.bitfinex, Self.usdt("ETH"), "3120")
        try harness.writeConfig(config(harness, venues))
        let daemon = try harness.start()
        defer { daemon.terminate() }
        try await daemon.waitUntilRunning()

        let eth = try await daemon.waitForEvent("ETH firing") { $0.key == "premium/kucoin-htx-bitfinex/ETH" && $0.status == "firing" }
        #expect(eth.premium?.high.exchange == "bitfinex" && eth.premium?.low.exchange == "kucoin", "\(String(describing: eth.premium))")
        #expect(abs((eth.premium?.pct ?? .nan) - 4) < 1e-9, "\(eth.premium?.pct ?? .nan)")
        let api = try await DaemonAPI.connect(to: daemon)
        let status = try JSONSerialization.jsonObject(with: try await api.get("/api/v1/status").body) as? [String: Any]
        // BTC is on all three, ETH on KuCoin and Bitfinex, XRP on HTX and Bitfinex; SOL is on KuCoin only, DOGE
        // liquid on KuCoin only, USDC excluded.
        #expect((status?["rules"] as? [[String: Any]])?.first?["assets"] as? [String] == ["BTC", "ETH", "XRP"])
        #expect(!venues.rest.requests(to: "/api/v2/symbols").isEmpty)
        #expect(!venues.rest.requests(to: "/v2/settings/common/symbols").isEmpty)
        #expect(!venues.rest.requests(to: "/v2/conf/pub:list:pair:exchange").isEmpty)

        // The first listings poll recorded what KuCoin lists and notified nothing; NEW-USDT is then listed once.
        let polls: @Sendable () -> Int = { venues.rest.requests(to: "/api/v2/symbols").count }
        try await daemon.waitUntil("three polls of KuCoin's symbols") { polls() >= 3 }
        #expect(!daemon.events.contains { $0.kind == .listing }, "the first run notifies nothing")
        venues.set(.kucoin, Self.usdt("NEW"), "1")
        let listed = try await daemon.waitForEvent("NEW-USDT listed") { $0.key == "listing/kucoin/NEW-USDT" }
        #expect(listed.status == "listed" && listed.listing?.asset == "NEW" && listed.listing?.quote == "USDT")
        let after = polls()
        try await daemon.waitUntil("three more polls") { polls() >= after + 3 }
        #expect(daemon.events.filter { $0.kind == .listing }.map(\.key) == ["listing/kucoin/NEW-USDT"])
        #expect(Set(daemon.events.filter { $0.kind != .listing }.map(\.key)) == ["premium/kucoin-htx-bitfinex/ETH"])
        #expect(try await SchemaValidator.validateAlertEvents(daemon.stdoutLines) == [])
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0)
        await venues.shutdown()
    }
}
