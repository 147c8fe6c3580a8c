import Foundation
import MarketAlertCore
import MarketAlertTestSupport
import Testing

/// `ipo.value` through the built daemon, against TWSE's recorded publicForm list and the TWSE/TPEx
/// end-of-day endpoints on 127.0.0.1: the emerging average prices a first listing, `min_spread_pct` holds an
/// OTC offering below it until a reload lowers the minimum (then it notifies once), and the lottery result
/// appearing in the TWSE row is notified once as `drawn`, not again after a restart.
///
/// The daemon reads the real clock, so "today" is the real day in Taipei (see IPOSubscriptionIntegrationTests).
@Suite(.serialized, .enabled(if: DaemonProcess.binaryExists, "needs the built marketalertd binary (swift build)"))
struct IPOValueIntegrationTests {
    static func config(_ harness: DaemonHarness, apis: MockMarketAPIs, minSpread: String) -> String {
        let value = "  value:\n    min_spread_pct: \(minSpread)\n    sources:\n      twse: \"\(apis.baseURL)\"\n"
            + "      tpex: \"\(apis.baseURL)\"\n"
        return harness.ipoOnlyConfig(notify: "[opens, last_day, drawn]").replacingOccurrences(of: "\nsinks:", with: "\n" + value + "sinks:")
    }

    @Test func valueMinimumSpreadReloadAndDraw() async throws {
        let now = Date()
        var payload = try TWSEPublicFormPayload()
        // 泰宗 4169 初上市, offer 102 (final not fixed); 建舜電 3322 上櫃增資, 11.13. Both open today.
        try payload.openWindow(code: "4169", start: now, days: 2)
        try payload.openWindow(code: "3322", start: now, days: 2)
        try payload.setCell(code: "4169", field: "總合格件", to: "0")
        try payload.setCell(code: "4169", field: "中籤率(%)", to: "0")
        let apis = try await MockMarketAPIs()
        try apis.serveTWSE(payload)
        let yesterday = try TWSEPublicFormPayload.adding(days: -1, to: now)
        try apis.serveMarketPrices(day: yesterday, twse: ["2330": "2,385.00"], tpex: ["3322": "11.50"], emerging: ["4169": "150"])
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        try harness.writeConfig(Self.config(harness, apis: apis, minSpread: "10"))

        let first = try harness.start()
        defer { first.terminate() }
        let opens = try await first.waitForEvent("the opens notification of 4169") { $0.ipo?.code == "4169" }
        #expect(opens.status == "open")
        let value = try #require(opens.ipo?.value)
        #expect(value.offerPrice == Decimal(102))
        #expect(value.marketPrice == Decimal(150))
        #expect(value.marketPriceSource == .tpex_emerging)
        #expect(value.marketPriceDate == TWSEPublicFormPayload.iso(yesterday))
        #expect(value.spreadPct == Decimal(string: "47.058824", locale: nil))  // 150 / 102 - 1 = 0.470588235…
        #expect(value.lotShares == 1000)
        #expect(value.expectedProfit == Decimal(48_000))
        #expect(value.winRatePct == nil)
        #expect(opens.summary.hasSuffix(": offer 102 TWD, emerging 150 TWD (+47.1%), ≈ 48,000 TWD per winning lot"), "\(opens.summary)")
        // 3322 at 11.50 over 11.13 is +3.3%: held while the minimum is 10.
        let polled = apis.twseRequests.count
        try await first.waitUntil("five more polls of the TWSE list") { apis.twseRequests.count >= polled + 5 }
        #expect(!first.events.contains { $0.ipo?.code == "3322" }, "\(first.stdoutLines)")
        #expect(apis.marketPriceRequests == 3, "end-of-day prices are fetched once, not on every list poll")

        // A reload lowers the minimum: 3322 is worth it now, notified once.
        try harness.writeConfig(Self.config(harness, apis: apis, minSpread: "3"))
        first.signal(SIGHUP)
        let otc = try await first.waitForEvent("3322 after the reload") { $0.ipo?.code == "3322" }
        #expect(otc.ipo?.value?.marketPriceSource == .tpex_close)
        #expect(otc.ipo?.value?.spreadPct == Decimal(string: "3.324349", locale: nil))  // 11.50 / 11.13 - 1
        #expect(otc.ipo?.value?.expectedProfit == Decimal(370))

        // The lottery result appears in 4169's row: drawn, once.
        try payload.setCell(code: "4169", field: "總合格件", to: "189,374")
        try payload.setCell(code: "4169", field: "中籤率(%)", to: "0.28")
        try apis.serveTWSE(payload)
        let drawn = try await first.waitForEvent("4169 drawn") { $0.status == "drawn" }
        #expect(drawn.ipo?.code == "4169")
        #expect(drawn.ipo?.value?.winRatePct == Decimal(string: "0.28", locale: nil))
        let afterDraw = apis.twseRequests.count
        try await first.waitUntil("five polls after the draw") { apis.twseRequests.count >= afterDraw + 5 }
        #expect(first.events.filter { $0.kind == .ipo }.count == 3, "\(first.stdoutLines)")
        #expect(try await SchemaValidator.validateAlertEvents(first.stdoutLines) == [])
        first.signal(SIGTERM)
        #expect(await first.waitForExit(timeout: .seconds(5)) == 0)

        // Restart: nothing is sent again (opens, the reloaded 3322, drawn all committed).
        let second = try harness.start()
        defer { second.terminate() }
        try await second.waitUntilRunning()
        let restartedAt = apis.twseRequests.count
        try await second.waitUntil("five polls after the restart") { apis.twseRequests.count >= restartedAt + 5 }
        #expect(!second.events.contains { $0.kind == .ipo }, "repeated after restart: \(second.stdoutLines)")
        second.signal(SIGTERM)
        #expect(await second.waitForExit(timeout: .seconds(5)) == 0)

        // `once` lists the open windows with their value.
        let once = try await harness.once()
        #expect(once.status == 0, "\(once)")
        #expect(once.stdout.contains("offer 102 TWD, emerging 150 TWD (+47.1%), ≈ 48,000 TWD per winning lot, win rate 0.28%"), "\(once.stdout)")
    }
}
