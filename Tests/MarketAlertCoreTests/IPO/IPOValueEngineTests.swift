import Foundation
import MarketAlertCore
import Testing

/// `ipo.value` through the engine: `min_spread_pct` holds `opens`/`last_day` below the minimum, an unknown
/// price still notifies, a window that becomes worth it while open notifies then (once), and `drawn` is
/// sent once across a restart and a reload. `EngineTestKit.start` is Tuesday 2026-03-10 10:00 in Taipei.
@Suite("IPO value through the engine")
struct IPOValueEngineTests {
    typealias Offer = IPOValueTests

    static func settings(minSpread: Decimal? = 10, notify: Set<IPONotification> = [.opens, .last_day, .drawn]) -> Settings {
        var settings = Settings()
        var source = IPOSourceSettings(name: "twse", baseURL: URL(fileURLWithPath: "/"))
        source.timeZone = "Asia/Taipei"
        settings.ipo.sources = [source]
        settings.ipo.notify = notify
        if let minSpread {
            var value = IPOValueSettings()
            value.minSpreadPct = minSpread
            settings.ipo.value = value
        }
        return settings
    }

    static func prices(_ source: MarketPriceSource, _ entries: [(String, String)]) throws -> EngineEvent {
        var prices: [String: MarketPrice] = [:]
        for (code, price) in entries { prices[code] = try Offer.price(price, source, code: code) }
        return .ipoMarketPrices(MarketPriceReport(source: source, prices: prices))
    }

    /// 長聖 (emerging 235 vs 160: +46.875%), 長虹 上市增資 (close 62 vs 60: +3.3%), 博晟 上櫃增資 (not listed by
    /// TPEx: unknown), and a row of an unknown market type.
    static let offerings = [
        Offer.offering(),
        Offer.offering(code: "5534", name: "長虹", market: "上市增資", offer: "60"),
        Offer.offering(code: "6733", name: "博晟生醫", market: "上櫃增資", offer: "36"),
        Offer.offering(code: "9988", name: "其他", market: "其他"),
    ]

    @Test func minSpreadHoldsLowSpreadsAndUnknownPricesStillNotify() throws {
        let now = EngineTestKit.start
        var engine = EngineTestKit.engine(Self.settings(), at: now)
        // Before any price source answered, only the row whose market has no price source notifies.
        let first = EngineTestKit.events(engine.handle(.ipoOfferings(source: "twse", Self.offerings), now: now))
        #expect(first.map(\.ipo?.code) == ["9988"])
        #expect(first.first?.summary.hasSuffix(": offer 160 TWD, market price unknown") == true)
        var sent = EngineTestKit.events(engine.handle(try Self.prices(.tpex_emerging, [("7795", "235")]), now: now))
        sent += EngineTestKit.events(engine.handle(try Self.prices(.twse_close, [("5534", "62")]), now: now))
        sent += EngineTestKit.events(engine.handle(try Self.prices(.tpex_close, [("3162", "50")]), now: now))
        #expect(sent.map(\.ipo?.code) == ["7795", "6733"])
        let worth = try #require(sent.first)
        #expect(worth.status == "open")
        #expect(worth.summary == "IPO 7795 長聖 (初上市) opens today 2026-03-10 (Asia/Taipei), closes 2026-03-12: "
            + "offer 160 TWD, emerging 235 TWD (+46.9%), ≈ 75,000 TWD per winning lot")
        #expect(worth.ipo?.value?.spreadPct == Decimal(string: "46.875", locale: nil))
        #expect(worth.ipo?.value?.expectedProfit == Decimal(75_000))
        let unknown = try #require(sent.last)
        #expect(unknown.ipo?.value?.marketPrice == nil)
        #expect(unknown.ipo?.value?.marketPriceSource == .tpex_close)
        #expect(unknown.summary.hasSuffix(": offer 36 TWD, market price unknown"))
    }

    @Test func aWindowThatBecomesWorthItWhileOpenNotifiesOnce() throws {
        let now = EngineTestKit.start
        var engine = EngineTestKit.engine(Self.settings(), at: now)
        _ = engine.handle(.ipoOfferings(source: "twse", [Self.offerings[1]]), now: now)
        #expect(EngineTestKit.events(engine.handle(try Self.prices(.twse_close, [("5534", "62")]), now: now)).isEmpty)
        // The next day's close is 70: +16.666667%, worth it now.
        let later = now.addingTimeInterval(86_400)
        let events = EngineTestKit.events(engine.handle(try Self.prices(.twse_close, [("5534", "70")]), now: later))
        #expect(events.map(\.status) == ["open"])
        #expect(events.first?.ipo?.value?.spreadPct == Decimal(string: "16.666667", locale: nil))
        #expect(events.first?.summary.contains("close 70 TWD (+16.7%), ≈ 10,000 TWD per winning lot") == true)
        // Another price the same day says nothing more; the last day is its own notification, once.
        #expect(EngineTestKit.events(engine.handle(try Self.prices(.twse_close, [("5534", "71")]), now: later)).isEmpty)
        let lastDay = later.addingTimeInterval(86_400)
        #expect(EngineTestKit.events(engine.advance(now: lastDay)).map(\.status) == ["last_day"])
        #expect(EngineTestKit.events(engine.handle(try Self.prices(.twse_close, [("5534", "72")]), now: lastDay)).isEmpty)
    }

    @Test func drawnIsSentOnceAcrossRestartAndReload() throws {
        let now = EngineTestKit.start.addingTimeInterval(7 * 86_400)  // after the window
        let settings = Self.settings(minSpread: 0)
        var engine = EngineTestKit.engine(settings, at: now)
        let undrawn = Offer.offering(winRate: "0", qualified: 0)
        _ = engine.handle(.ipoOfferings(source: "twse", [undrawn]), now: now)
        let drawnRow = Offer.offering(winRate: "0.28", qualified: 189_374)
        let actions = engine.handle(.ipoOfferings(source: "twse", [drawnRow]), now: now)
        let events = EngineTestKit.events(actions)
        #expect(events.map(\.status) == ["drawn"])
        #expect(events.first?.ipo?.value?.winRatePct == Decimal(string: "0.28", locale: nil))
        #expect(events.first?.summary.contains("lottery result published: win rate 0.28% of 189,374 qualified applications") == true)

        // Restart from what was committed with the notification.
        var restored = AlertEngine.Restored()
        for case .publish(let publication) in actions {
            for record in publication.states where record.kind == IPOAlertState.kind {
                restored.ipo[record.key] = try JSONDecoder().decode(IPOAlertState.self, from: record.data)
            }
        }
        #expect(restored.ipo[drawnRow.key] != nil)
        var again = EngineTestKit.engine(settings, restored: restored, at: now)
        #expect(EngineTestKit.events(again.handle(.ipoOfferings(source: "twse", [drawnRow]), now: now)).isEmpty)
        // A reload (another minimum) evaluates again: still nothing.
        _ = again.handle(.settings(Self.settings(minSpread: 5)), now: now)
        #expect(EngineTestKit.events(again.handle(.ipoOfferings(source: "twse", [drawnRow]), now: now)).isEmpty)
    }

    /// The IPO states a decision committed, as a restart reads them back.
    static func committed(_ actions: [EngineAction], into restored: inout AlertEngine.Restored) throws {
        for case .publish(let publication) in actions {
            for record in publication.states where record.kind == IPOAlertState.kind {
                restored.ipo[record.key] = try JSONDecoder().decode(IPOAlertState.self, from: record.data)
            }
        }
    }

    /// The price is stored with the offering's state: after a restart, with the price source not answering
    /// yet, the window opens with the last price it had (before, it waited for the source's first answer).
    @Test func aStoredPriceOpensTheWindowAfterARestartBeforeItsSourceAnswers() throws {
        let eve = EngineTestKit.start.addingTimeInterval(-86_400)  // Monday: the window opens tomorrow
        var engine = EngineTestKit.engine(Self.settings(), at: eve)
        var restored = AlertEngine.Restored()
        try Self.committed(engine.handle(.ipoOfferings(source: "twse", [Self.offerings[0]]), now: eve), into: &restored)
        try Self.committed(engine.handle(try Self.prices(.tpex_emerging, [("7795", "235")]), now: eve), into: &restored)
        let stored = try #require(restored.ipo[Self.offerings[0].key])
        #expect(stored.price == (try Offer.price("235", .tpex_emerging)))

        // Tuesday: restarted; TPEx has not answered (it may be down).
        let now = EngineTestKit.start
        var again = EngineTestKit.engine(Self.settings(), restored: restored, at: now)
        let opened = EngineTestKit.events(again.advance(now: now))
        #expect(opened.map(\.status) == ["open"])
        #expect(opened.first?.ipo?.value?.marketPrice == Decimal(235))
        #expect(opened.first?.summary.contains("emerging 235 TWD (+46.9%)") == true)
        // Its answer replaces the stored price.
        _ = again.handle(try Self.prices(.tpex_emerging, [("7795", "240")]), now: now)
        #expect(again.ipoSnapshot(now: now).first?.value?.marketPrice == Decimal(240))
    }

    /// An HA takeover adopts the leader's stored price where the standby has none of its own.
    @Test func aTakeoverAdoptsTheStoredPrice() throws {
        let eve = EngineTestKit.start.addingTimeInterval(-86_400)
        var leader = EngineTestKit.engine(Self.settings(), at: eve)
        var restored = AlertEngine.Restored()
        try Self.committed(leader.handle(.ipoOfferings(source: "twse", [Self.offerings[0]]), now: eve), into: &restored)
        try Self.committed(leader.handle(try Self.prices(.tpex_emerging, [("7795", "235")]), now: eve), into: &restored)
        let now = EngineTestKit.start
        var standby = EngineTestKit.engine(Self.settings(), at: eve)
        let opened = EngineTestKit.events(standby.adopt(restored, now: now))
        #expect(opened.map(\.status) == ["open"])
        #expect(opened.first?.ipo?.value?.marketPrice == Decimal(235))
    }

    @Test func withoutAStoredPriceTheWindowStillWaitsForItsSource() throws {
        let eve = EngineTestKit.start.addingTimeInterval(-86_400)
        var engine = EngineTestKit.engine(Self.settings(), at: eve)
        var restored = AlertEngine.Restored()
        try Self.committed(engine.handle(.ipoOfferings(source: "twse", [Self.offerings[0]]), now: eve), into: &restored)
        #expect(restored.ipo[Self.offerings[0].key]?.price == nil)
        var again = EngineTestKit.engine(Self.settings(), restored: restored, at: EngineTestKit.start)
        #expect(EngineTestKit.events(again.advance(now: EngineTestKit.start)).isEmpty)
    }

    /// A first listing that has left the emerging board (it listed) is priced by its TWSE close.
    @Test func aFirstListingNoLongerOnTheEmergingBoardIsPricedByItsClose() throws {
        let now = EngineTestKit.start
        var engine = EngineTestKit.engine(Self.settings(), at: now)
        _ = engine.handle(.ipoOfferings(source: "twse", [Self.offerings[0]]), now: now)
        // A code has one market: a TWSE close for it means it has listed, whatever the emerging board says later.
        let sent = EngineTestKit.events(engine.handle(try Self.prices(.twse_close, [("7795", "300")]), now: now))
        #expect(sent.map(\.status) == ["open"])
        #expect(EngineTestKit.events(engine.handle(try Self.prices(.tpex_emerging, [("6999", "50")]), now: now)).isEmpty)
        let value = try #require(sent.first?.ipo?.value)
        #expect(value.marketPrice == Decimal(300))
        #expect(value.marketPriceSource == .twse_close)
        #expect(value.spreadPct == Decimal(string: "87.5", locale: nil))
        #expect(sent.first?.summary.contains("close 300 TWD (+87.5%)") == true)
    }

    @Test func aRowFirstSeenDrawnIsNotNews() {
        let now = EngineTestKit.start.addingTimeInterval(7 * 86_400)
        var engine = EngineTestKit.engine(Self.settings(minSpread: 0), at: now)
        let events = EngineTestKit.events(
            engine.handle(.ipoOfferings(source: "twse", [Offer.offering(winRate: "0.28", qualified: 189_374)]), now: now))
        #expect(events.isEmpty)
    }

    @Test func withoutIPOValueNotificationsAreAsInV2() throws {
        let now = EngineTestKit.start
        var engine = EngineTestKit.engine(Self.settings(minSpread: nil, notify: [.opens, .last_day]), at: now)
        let events = EngineTestKit.events(engine.handle(.ipoOfferings(source: "twse", Self.offerings), now: now))
        #expect(events.count == 4)
        #expect(events.allSatisfy { $0.ipo?.value == nil })
        #expect(events.first?.summary == "IPO 7795 長聖 (初上市) opens today 2026-03-10 (Asia/Taipei), closes 2026-03-12, price 160.00 TWD (not final)")
        // Price reports are ignored without the section.
        #expect(EngineTestKit.events(engine.handle(try Self.prices(.twse_close, [("5534", "70")]), now: now)).isEmpty)
    }
}
