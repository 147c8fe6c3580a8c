import Foundation
import MarketAlertCore
import Testing

/// The digest's IPO section with `ipo.value`: each open window carries its value, and its chat line says it.
@Suite struct IPOValueDigestTests {
    @Test func theDigestsOpenWindowsCarryTheirValue() throws {
        let start = EngineTestKit.start  // 2026-03-10 10:00 in Taipei
        var settings = IPOValueEngineTests.settings(minSpread: 0)
        settings.history = HistorySettings(resolution: .seconds(60), retention: .seconds(3 * 86_400))
        settings.digest = DigestSettings(hour: 11, minute: 0, timeZone: "Asia/Taipei", kinds: [.ipo])
        var engine = EngineTestKit.engine(settings, at: start)
        _ = engine.start(now: start)
        _ = engine.handle(.ipoOfferings(source: "twse", [IPOValueTests.offering()]), now: start)
        _ = engine.handle(try IPOValueEngineTests.prices(.tpex_emerging, [("7795", "235")]), now: start)
        let due = start.addingTimeInterval(3600)
        let digest = try #require(EngineTestKit.events(engine.advance(now: due)).first { $0.kind == .digest })
        let window = try #require(digest.digest?.ipo?.first)
        #expect(window.code == "7795")
        #expect(window.value?.spreadPct == Decimal(string: "46.875", locale: nil))
        #expect(window.value?.expectedProfit == Decimal(75_000))
        let lines = DigestEvents.lines(try #require(digest.digest))
        #expect(lines.contains("IPO 7795 長聖: subscription 2026-03-10 to 2026-03-12, "
            + "offer 160 TWD, emerging 235 TWD (+46.9%), ≈ 75,000 TWD per winning lot"), "\(lines)")
    }
}
