import Foundation
import MarketAlertCore
import Testing

/// Guards a trader would trust: a 1000× price is a data problem of that exchange, not a premium; a jump of
/// USD/KRW to 1 is held until confirmed.
@Suite struct PlausibilityTests {
    typealias Kit = EngineTestKit
    let t0 = EngineTestKit.start

    @Test func anExchangeGoing1000xIsADataProblemNotAPremiumAndClearsWhenItIsBack() {
        var engine = Kit.engine(Kit.settings(rules: [Kit.rule("global", exchanges: [.binance, .bybit])]))
        _ = engine.handle(.quotes(.bybit, [Kit.quote(.bybit, "100000", at: t0)], .snapshot), now: t0)
        let bad = Kit.events(engine.handle(.quotes(.binance, [Kit.quote(.binance, "100000000", at: t0)], .snapshot), now: t0))
        #expect(bad.map(\.key) == ["source/binance/data"])
        #expect(bad.first?.kind == .source && bad.first?.status == "firing")
        #expect(bad.first?.summary.contains("99,900.000% premium") == true)
        #expect(!bad.contains { $0.kind == .premium })
        #expect(engine.premium.states["premium/global/BTC"]?.isFiring != true)

        let t1 = t0.addingTimeInterval(5)
        let back = Kit.events(engine.handle(.quotes(.binance, [Kit.quote(.binance, "100200", at: t1)], .snapshot), now: t1))
        #expect(back.map { "\($0.key) \($0.status)" }.sorted() == ["premium/global/BTC firing", "source/binance/data resolved"])
    }

    /// The same provider repeating a jump a second later is no confirmation: the jump stays held, the last
    /// accepted rate serves, and the alert names the FX provider (not the KRW exchange).
    @Test func aUSDKRWJumpToOneRepeatedByTheSameProviderStaysHeldAndTheAlertNamesTheProvider() {
        let rule = Kit.rule("kimchi", exchanges: [.upbit, .binance], quotes: ["KRW", "USDT"])
        var engine = Kit.engine(Kit.settings(rules: [rule], fx: true))
        _ = engine.handle(Kit.fxRound(.dunamu, rate: "1400", at: t0), now: t0)
        _ = engine.handle(.quotes(.binance, [Kit.quote(.binance, "100000", at: t0)], .snapshot), now: t0)
        _ = engine.handle(.quotes(.upbit, [Kit.quote(.upbit, "140000000", quote: "KRW", at: t0)], .snapshot), now: t0)

        let t1 = t0.addingTimeInterval(60)
        let held = engine.handle(Kit.fxRound(.dunamu, rate: "1", at: t1), now: t1)
        #expect(engine.fxRates["KRW"]?.rate == Price("1400"))
        #expect(Kit.events(held).map { "\($0.key) \($0.status)" } == ["source/dunamu/data firing"])
        #expect(Kit.events(held).first?.summary.contains("USD/KRW 1") == true)
        #expect(held.contains { if case .log(let line) = $0 { line.message.contains("held until") } else { false } })

        // One second later dunamu says the same: still held, nothing new published, upbit never blamed.
        var later: [AlertEvent] = []
        for step in 1...5 {
            let now = t1.addingTimeInterval(Double(step))
            later += Kit.events(engine.handle(Kit.fxRound(.dunamu, rate: "1", at: now), now: now))
            later += Kit.events(engine.handle(.quotes(.upbit, [Kit.quote(.upbit, "140000000", quote: "KRW", at: now)], .snapshot), now: now))
            later += Kit.events(engine.handle(.quotes(.binance, [Kit.quote(.binance, "100000", at: now)], .snapshot), now: now))
        }
        #expect(engine.fxRates["KRW"]?.rate == Price("1400"))
        #expect(!later.contains { $0.key.hasPrefix("source/upbit") })
        #expect(!later.contains { $0.key == "source/dunamu/data" })

        // Back to normal: the hold ends and its alert resolves.
        let t2 = t1.addingTimeInterval(60)
        let normal = Kit.events(engine.handle(Kit.fxRound(.dunamu, rate: "1401", at: t2), now: t2))
        #expect(normal.map { "\($0.key) \($0.status)" } == ["source/dunamu/data resolved"])
        #expect(engine.fxRates["KRW"]?.rate == Price("1401"))
    }

    /// A hold is bounded: a provider that keeps to its jump for an hour is believed; a premium that is then
    /// implausible is blamed on that provider, with the rate in the text.
    @Test func aJumpKeptForTheHoldIsAcceptedAndAnImplausiblePremiumBlamesTheFXProvider() {
        let rule = Kit.rule("kimchi", exchanges: [.upbit, .binance], quotes: ["KRW", "USDT"])
        var engine = Kit.engine(Kit.settings(rules: [rule], fx: true))
        _ = engine.handle(Kit.fxRound(.dunamu, rate: "1400", at: t0), now: t0)
        _ = engine.handle(.quotes(.binance, [Kit.quote(.binance, "100000", at: t0)], .snapshot), now: t0)
        let t1 = t0.addingTimeInterval(60)
        _ = engine.handle(Kit.fxRound(.dunamu, rate: "1", at: t1), now: t1)
        let t2 = t1.addingTimeInterval(3599)
        _ = engine.handle(Kit.fxRound(.dunamu, rate: "1", at: t2), now: t2)
        // Still held; the last accepted rate (an hour old) is no longer fresh, so KRW has no rate at all.
        #expect(engine.fxRates["KRW"] == nil)
        let t3 = t1.addingTimeInterval(3600)
        var events = Kit.events(engine.handle(Kit.fxRound(.dunamu, rate: "1", at: t3), now: t3))
        #expect(engine.fxRates["KRW"]?.rate == Price("1"))
        events += Kit.events(engine.handle(.quotes(.binance, [Kit.quote(.binance, "100000", at: t3)], .snapshot), now: t3))
        events += Kit.events(engine.handle(.quotes(.upbit, [Kit.quote(.upbit, "140000000", quote: "KRW", at: t3)], .snapshot), now: t3))
        #expect(!events.contains { $0.key.hasPrefix("source/upbit") })
        let blamed = events.last { $0.key == "source/dunamu/data" }
        #expect(blamed?.status == "firing")
        #expect(blamed?.summary.contains("converted at USD/KRW 1.00 from dunamu") == true)
    }

    @Test func aJumpAnotherProviderConfirmsIsAcceptedAtOnce() {
        let rule = Kit.rule("kimchi", exchanges: [.upbit, .binance], quotes: ["KRW", "USDT"])
        var engine = Kit.engine(Kit.settings(rules: [rule], fx: true))
        _ = engine.handle(Kit.fxRound(.dunamu, rate: "1400", at: t0), now: t0)
        let t1 = t0.addingTimeInterval(60)
        var book = FXRateBook()
        for (provider, rate) in [(FXProviderKind.dunamu, "1600"), (.frankfurter, "1598")] {
            if let price = Price(rate) {
                book.recordSuccess(provider, rates: [FXRate(base: "USD", quote: "KRW", rate: price, provider: provider.rawValue, at: t1)], at: t1)
            }
        }
        let failover = FXFailover(chain: [.standard(.dunamu), .standard(.frankfurter)], currencies: ["KRW"], maxAge: .seconds(900))
        let events = Kit.events(engine.handle(.fxRound(book, failover), now: t1))
        #expect(engine.fxRates["KRW"]?.rate == Price("1600"))
        #expect(events.isEmpty)
    }

    @Test func aMoveWithinTheLimitIsAcceptedAtOnce() {
        let rule = Kit.rule("kimchi", exchanges: [.upbit, .binance], quotes: ["KRW", "USDT"])
        var engine = Kit.engine(Kit.settings(rules: [rule], fx: true))
        _ = engine.handle(Kit.fxRound(.dunamu, rate: "1400", at: t0), now: t0)
        let t1 = t0.addingTimeInterval(60)
        _ = engine.handle(Kit.fxRound(.dunamu, rate: "1512", at: t1), now: t1)  // +8%
        #expect(engine.fxRates["KRW"]?.rate == Price("1512"))
    }
}

/// A source listing thousands of rows at once notifies at most `ipoNotificationCap` of them, plus one summary.
@Suite struct IPOFloodTests {
    @Test func aThousandNewRowsMakeTwentyNotificationsAndOneSummary() throws {
        var settings = Settings()
        var source = IPOSourceSettings(name: "twse", baseURL: URL(fileURLWithPath: "/"))
        source.timeZone = "Asia/Taipei"
        settings.ipo.sources = [source]
        settings.ipo.notify = [.announced, .opens, .last_day]
        let now = EngineTestKit.start  // 2026-03-10 10:00 in Taipei
        let offerings = (0..<1_000).map { index in
            IPOOffering(
                source: "twse", code: String(format: "%04d", 1000 + index % 9000) , name: "Row \(index)",
                market: "初上市", timeZone: "Asia/Taipei", subscriptionStart: CalendarDay(iso: "2026-03-12"),
                subscriptionEnd: CalendarDay(iso: "2026-03-16"), lotteryDate: CalendarDay(iso: "2026-03-18"), offerPrice: Decimal(45),
                finalPrice: Decimal(45), shares: 1000, currency: "TWD")
        }
        var engine = EngineTestKit.engine(settings, at: now)
        let events = EngineTestKit.events(engine.handle(.ipoOfferings(source: "twse", offerings), now: now))
        #expect(events.count == AlertEngine.ipoNotificationCap + 1)
        #expect(events.last?.key == "source/twse/flood")
        #expect(events.last?.summary.contains("1000 IPO notifications in one poll") == true)
        // The held-back rows are not sent later either; the next ordinary evaluation resolves the summary.
        let later = EngineTestKit.events(engine.advance(now: now.addingTimeInterval(60)))
        #expect(later.map { "\($0.key) \($0.status)" } == ["source/twse/flood resolved"])
    }
}
