import Foundation
import MarketAlertCore
import MarketAlertTestSupport
import Testing

/// The built daemon against recorded exchange and FX payloads served on 127.0.0.1, prices edited between
/// polls; the alert events are read from its stdout and validated against the agreed JSON schema.
@Suite(.serialized, .enabled(if: DaemonProcess.binaryExists, "needs the built marketalertd binary (swift build)"))
struct PremiumAlertIntegrationTests {
    @Test func crossingNoticeThenWarningThenClearingOnStdout() async throws {
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        let daemon = try await harness.startStandard(btc: (binance: "100000.00", bybit: "100000.00", upbit: "140000000"))
        defer { daemon.terminate() }

        apis.set("bybit", "BTC", "100060.00")  // 0.06% ≥ 0.05 notice
        try await daemon.waitForEvent("notice") { $0.key == "premium/global/BTC" && $0.severity == .notice }
        apis.set("bybit", "BTC", "100120.00")  // 0.12% ≥ 0.1 warning
        try await daemon.waitForEvent("warning") { $0.key == "premium/global/BTC" && $0.severity == .warning }
        apis.set("bybit", "BTC", "100010.00")  // 0.01% < clear 0.04
        try await daemon.waitForEvent("resolved") { $0.key == "premium/global/BTC" && $0.status == "resolved" }

        let events = daemon.events.filter { $0.key == "premium/global/BTC" }
        #expect(events.map(\.status) == ["firing", "firing", "resolved"])
        #expect(events.map(\.severity) == [.notice, .warning, .info])
        let warning = try #require(events.dropFirst().first?.premium)
        #expect(warning.rule == "global")
        #expect(warning.asset == "BTC")
        #expect(warning.thresholdPct == 0.1)
        #expect(warning.high.exchange == "bybit")
        #expect(warning.high.price == Decimal(string: "100120"))
        #expect(warning.low.exchange == "binance")
        #expect(warning.low.market == "BTCUSDT")
        #expect(abs(warning.pct - 0.12) < 1e-6)
        #expect(warning.fx.isEmpty)
        #expect(try await SchemaValidator.validateAlertEvents(daemon.stdoutLines) == [])
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0)
    }

    @Test func kimchiRuleConvertsThroughDunamu() async throws {
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        apis.setFX { $0.dunamuRate = "1400.00"; $0.dunamuAt = Date(); $0.oxrRate = 1300; $0.oxrAt = Date() }
        // upbit 140,000,000 / 1400 = 100,000 USD: no premium yet.
        let daemon = try await harness.startStandard(btc: (binance: "100000.00", bybit: "100000.00", upbit: "140000000"))
        defer { daemon.terminate() }

        apis.set("upbit", "BTC", "145600000")  // 104,000 USD: 4% ≥ 3% warning
        let event = try await daemon.waitForEvent("kimchi warning via dunamu") { $0.key == "premium/kimchi/BTC" && $0.status == "firing" }
        let premium = try #require(event.premium)
        #expect(event.severity == .warning)
        #expect(premium.high.exchange == "upbit")
        #expect(premium.high.market == "KRW-BTC")
        #expect(premium.high.quote == "KRW")
        #expect(premium.high.price == Decimal(string: "145600000"))
        #expect(premium.high.priceRef == Decimal(string: "104000"))
        #expect(premium.low.exchange == "binance")
        #expect(premium.fx.map(\.provider) == ["dunamu"])
        #expect(premium.fx.first?.pair == "USD/KRW")
        #expect(premium.fx.first?.rate == Decimal(string: "1400"))
        #expect(abs(premium.pct - 4) < 1e-6)
        #expect(event.summary.contains("upbit 145,600,000 KRW (104,000.00 USD) over binance 100,000.00 USDT"), "\(event.summary)")
        #expect(try await SchemaValidator.validateAlertEvents(daemon.stdoutLines) == [])
    }

    @Test func staleDunamuFallsThroughToOpenExchangeRatesNamedInTheAlert() async throws {
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        // Dunamu does not move on weekends and 00:00–09:00 KST: its last quote is 3 h old, past fx.max_age.
        // OXR (KRW 1300, quoted 10 minutes ago) is used: 145,600,000 / 1300 = 112,000 USD, 12% → critical.
        apis.setFX { $0.dunamuRate = "1400.00"; $0.dunamuAt = Date().addingTimeInterval(-3 * 3600); $0.oxrRate = 1300; $0.oxrAt = Date().addingTimeInterval(-600) }
        let daemon = try await harness.startStandard(btc: (binance: "100000.00", bybit: "100000.00", upbit: "145600000"))
        defer { daemon.terminate() }
        let event = try await daemon.waitForEvent("kimchi critical via OXR") { $0.key == "premium/kimchi/BTC" && $0.status == "firing" }
        #expect(event.severity == .critical)
        #expect(event.premium?.fx.map(\.provider) == ["openexchangerates"])
        #expect(event.premium?.fx.first?.rate == Decimal(1300))
        #expect(event.premium?.high.priceRef == Decimal(112_000))
        #expect(apis.server.requests(to: "/api/latest.json").allSatisfy { $0.header("Authorization") == "Token test-app-id" })
        #expect(!daemon.stderrLines.contains { $0.contains("test-app-id") }, "the OXR app id leaked into the logs")
        #expect(try await SchemaValidator.validateAlertEvents(daemon.stdoutLines) == [])
    }

    @Test func anExchangeReturningGarbageRaisesASourceAlertAndNoPremiumAlert() async throws {
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        let daemon = try await harness.startStandard(btc: (binance: "100000.00", bybit: "100000.00", upbit: "140000000"))
        defer { daemon.terminate() }
        // Let the first good polls land, then bybit answers an HTML error page, then truncated JSON, both
        // "quoting" a price 5% above binance. Neither may ever produce a premium.
        try await daemon.waitForLine("a quiet start", stderr: true) { $0.contains("running") }
        apis.override("bybit", with: MockHTTPServer.Response(
            status: 200, headers: [("Content-Type", "text/html")], body: Data("<html><body>502 Bad Gateway lastPrice 105000</body></html>".utf8)))
        let source = try await daemon.waitForEvent("source/bybit firing") { $0.key == "source/bybit" && $0.status == "firing" }
        #expect(source.source?.name == "bybit")
        #expect(source.source?.error?.contains("HTML") == true)
        apis.override("bybit", with: .json(#"{"retCode":0,"retMsg":"OK","result":{"category":"spot","list":[{"symbol":"BTCUSDT","lastPrice":"105000"#))
        // Two polls answered with the truncated body (a failing source's lines are throttled, so the log
        // is no witness that the daemon saw it; the mock's request count is).
        let polled = apis.server.requests.filter { $0.path.contains("/v5/market/tickers") }.count
        try await daemon.waitUntil("two polls of bybit's truncated JSON") {
            apis.server.requests.filter { $0.path.contains("/v5/market/tickers") }.count >= polled + 2
        }
        apis.override("bybit", with: nil)
        try await daemon.waitForEvent("source/bybit resolved") { $0.key == "source/bybit" && $0.status == "resolved" }
        #expect(!daemon.events.contains { $0.kind == .premium }, "\(daemon.events.map(\.summary))")
        #expect(try await SchemaValidator.validateAlertEvents(daemon.stdoutLines) == [])
    }
}
