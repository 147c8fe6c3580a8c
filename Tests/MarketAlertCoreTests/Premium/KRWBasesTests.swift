import Foundation
import MarketAlertCore
import Testing

/// `krw_via` both ways, `premium.bases` on every kimchi notification, USDT/KRW from the Korean exchanges'
/// KRW-USDT markets with its plausibility guard and failover, and the tether premium's lifecycle — on the
/// engine with virtual time. Every expected pct is computed here from the prices, not read from the engine.
@Suite struct KRWBasesTests {
    typealias Kit = EngineTestKit
    let t0 = EngineTestKit.start

    func settings(krwVia: KRWVia, tetherPct: Double? = nil) -> Settings {
        var rule = PremiumRule(
            name: "kimchi", assets: ["BTC"], exchanges: [.upbit, .binance], quotes: ["KRW", "USDT"],
            levels: [AlertLevel(pct: 3, severity: .warning), AlertLevel(pct: 5, severity: .critical)], clearPct: 2.5)
        rule.krwVia = krwVia
        var settings = Kit.settings(rules: [rule], fx: true)
        settings.exchanges[.bithumb] = Kit.exchange(.bithumb)
        settings.premium.stablecoinsAs = ["USDT": "USD"]
        settings.fx.usdtKrw = USDTKRWSettings(exchanges: [.upbit, .bithumb])
        if let tetherPct { settings.fx.tetherAlerts = [TetherPremiumAlertSettings(premiumPct: tetherPct)] }
        return settings
    }

    /// USD/KRW 1400 from dunamu; binance BTC 100,000 USDT; upbit BTC `btcKRW` and USDT `usdtKRW`; bithumb USDT `bithumbUSDT`.
    func start(_ engine: inout AlertEngine, btcKRW: String, usdtKRW: String, bithumbUSDT: String = "1460", at now: Date) -> [AlertEvent] {
        var events = Kit.events(engine.handle(Kit.fxRound(.dunamu, rate: "1400", at: now), now: now))
        events += Kit.events(engine.handle(.quotes(.binance, [Kit.quote(.binance, "100000", at: now)], .snapshot), now: now))
        events += Kit.events(engine.handle(.quotes(.bithumb, [Kit.quote(.bithumb, bithumbUSDT, asset: "USDT", quote: "KRW", at: now)], .snapshot), now: now))
        events += Kit.events(engine.handle(.quotes(.upbit, [
            Kit.quote(.upbit, btcKRW, quote: "KRW", at: now), Kit.quote(.upbit, usdtKRW, asset: "USDT", quote: "KRW", at: now),
        ], .snapshot), now: now))
        return events
    }

    @Test func usdFXStaysTheDefaultAndCarriesBothBases() throws {
        var engine = Kit.engine(settings(krwVia: .usdFx))
        let events = start(&engine, btcKRW: "145600000", usdtKRW: "1456", at: t0)
        let event = try #require(events.first { $0.key == "premium/kimchi/BTC" })
        let usdFX: Double = (145_600_000.0 / 1400 / 100_000 - 1) * 100  // 4%
        let usdt: Double = (145_600_000.0 / 1456 / 100_000 - 1) * 100  // 0%
        #expect(event.status == "firing" && event.severity == .warning)
        #expect(abs((event.premium?.pct ?? 0) - usdFX) < 1e-6)
        let bases = try #require(event.premium?.bases)
        #expect(bases.krwVia == .usdFx)
        #expect(abs((bases.usdFxPct ?? .nan) - usdFX) < 1e-6)
        #expect(abs((bases.usdtPct ?? .nan) - usdt) < 1e-6)
        #expect(bases.usdKrw == Decimal(1400) && bases.usdtKrw == Decimal(1456))
        #expect(event.premium?.fx.map(\.pair) == ["USD/KRW"])
    }

    /// USDT/KRW waits for every one of its exchanges. When the last of them is declared down at its first
    /// fetch (or answers without a KRW-USDT quote), it selects from the others at once, before the premium
    /// rules evaluate: the first kimchi notification carries both bases. (Before, it carried none for USDT
    /// until the next KRW-USDT quote: the integration test saw that when Bithumb's first fetch was slow.)
    @Test(arguments: [false, true])
    func theLastUSDTKRWExchangeFailingOrSilentStillLetsTheFirstNotificationCarryBothBases(failing: Bool) throws {
        var engine = Kit.engine(settings(krwVia: .usdFx))
        var events = Kit.events(engine.handle(Kit.fxRound(.dunamu, rate: "1400", at: t0), now: t0))
        events += Kit.events(engine.handle(.quotes(.upbit, [
            Kit.quote(.upbit, "145600000", quote: "KRW", at: t0), Kit.quote(.upbit, "1456", asset: "USDT", quote: "KRW", at: t0),
        ], .snapshot), now: t0))
        events += Kit.events(engine.handle(.quotes(.binance, [Kit.quote(.binance, "100000", at: t0)], .snapshot), now: t0))
        #expect(engine.usdtKrwRate == nil, "bithumb is still awaited")
        let last: EngineEvent = failing
            ? .sourceFailed(source: "bithumb", message: "timed out after 2s")
            : .quotes(.bithumb, [Kit.quote(.bithumb, "150000000", quote: "KRW", at: t0)], .snapshot)
        events += Kit.events(engine.handle(last, now: t0))
        #expect(engine.usdtKrwRate?.provider == "upbit")
        let event = try #require(events.first { $0.key == "premium/kimchi/BTC" })
        #expect(event.premium?.bases?.usdtKrw == Decimal(1456))
        let usdt: Double = (145_600_000.0 / 1456 / 100_000 - 1) * 100  // 0%
        let reported: Double = event.premium?.bases?.usdtPct ?? .nan
        #expect(abs(reported - usdt) < 1e-6)
    }

    @Test func usdtBasisAlertsOnTheTetherRateAndNamesItsExchange() throws {
        var engine = Kit.engine(settings(krwVia: .usdt))
        // 145,600,000 KRW / 1456 = 100,000 USD: no premium on this basis although usd_fx says 4%.
        let quiet = start(&engine, btcKRW: "145600000", usdtKRW: "1456", at: t0)
        #expect(!quiet.contains { $0.kind == .premium })
        let t1 = t0.addingTimeInterval(1)
        let events = Kit.events(engine.handle(.quotes(.upbit, [Kit.quote(.upbit, "153608000", quote: "KRW", at: t1)], .update), now: t1))
        let event = try #require(events.first { $0.key == "premium/kimchi/BTC" })
        let usdt: Double = (153_608_000.0 / 1456 / 100_000 - 1) * 100  // 5.5%: critical
        let usdFX: Double = (153_608_000.0 / 1400 / 100_000 - 1) * 100  // 9.72%
        #expect(event.severity == .critical)
        #expect(abs((event.premium?.pct ?? 0) - usdt) < 1e-6)
        #expect(event.premium?.bases?.krwVia == .usdt)
        #expect(abs((event.premium?.bases?.usdtPct ?? .nan) - usdt) < 1e-6)
        #expect(abs((event.premium?.bases?.usdFxPct ?? .nan) - usdFX) < 1e-6)
        #expect(event.premium?.fx.map { "\($0.pair) \($0.provider)" } == ["USDT/KRW upbit"])
        #expect(event.premium?.high.priceRef == Decimal(105_500))
        #expect(event.summary.contains("alerted on usdt"), "\(event.summary)")
    }

    @Test func aTenfoldKRWUSDTPrintIsADataErrorAndTheNextExchangeServes() {
        var engine = Kit.engine(settings(krwVia: .usdt))
        _ = start(&engine, btcKRW: "145600000", usdtKRW: "14560", bithumbUSDT: "1456", at: t0)
        #expect(engine.usdtKrwRate?.provider == "bithumb")
        #expect(engine.usdtKrwRate?.rate == Price("1456"))
        // Upbit back to sense: it is first in the list, so it serves again.
        let t1 = t0.addingTimeInterval(1)
        _ = engine.handle(.quotes(.upbit, [Kit.quote(.upbit, "1457", asset: "USDT", quote: "KRW", at: t1)], .update), now: t1)
        #expect(engine.usdtKrwRate?.provider == "upbit")
        #expect(engine.usdtKrwRate?.rate == Price("1457"))
    }

    @Test func theMidOfTheBookIsUsedWhenThereIsOne() {
        var engine = Kit.engine(settings(krwVia: .usdt))
        _ = start(&engine, btcKRW: "145600000", usdtKRW: "1456", at: t0)
        let t1 = t0.addingTimeInterval(1)
        var quote = Kit.quote(.upbit, "1499", asset: "USDT", quote: "KRW", at: t1)
        quote.bid = Price("1450")
        quote.ask = Price("1452")
        _ = engine.handle(.quotes(.upbit, [quote], .update), now: t1)
        #expect(engine.usdtKrwRate?.rate == Price("1451"))
    }

    @Test func theTetherPremiumFiresHoldsAndResolvesBelowEightyPercent() {
        var engine = Kit.engine(settings(krwVia: .usdFx, tetherPct: 3))
        let first = start(&engine, btcKRW: "140000000", usdtKRW: "1400", at: t0)
        #expect(!first.contains { $0.key == "fx/USDT-KRW" })
        #expect(engine.tetherPremiumPct == 0)

        func usdt(_ price: String, after seconds: Double) -> [AlertEvent] {
            let now = t0.addingTimeInterval(seconds)
            return Kit.events(engine.handle(.quotes(.upbit, [Kit.quote(.upbit, price, asset: "USDT", quote: "KRW", at: now)], .update), now: now))
                .filter { $0.key == "fx/USDT-KRW" }
        }
        let fired = usdt("1450", after: 1)  // 1450 / 1400 − 1 = 3.571% ≥ 3%
        #expect(fired.map(\.status) == ["firing"])
        #expect(fired.first?.kind == .fx && fired.first?.fx?.pair == "USDT/KRW" && fired.first?.fx?.provider == "upbit")
        let expected: Double = (1450.0 / 1400 - 1) * 100
        let reported: Double = fired.first?.fx?.premiumPct ?? 0
        #expect(abs(reported - expected) < 1e-6)
        #expect(usdt("1436", after: 2).isEmpty)  // 2.571% ≥ 2.4% (80% of 3): still firing, nothing new
        let resolved = usdt("1430", after: 3)  // 2.143% < 2.4%
        #expect(resolved.map(\.status) == ["resolved"])
        #expect(usdt("1300", after: 4).map(\.status) == ["firing"])  // −7.14%: the gap counts either way
    }

    @Test func aFiringTetherPremiumIsListedAmongTheFiringAlerts() {
        var engine = Kit.engine(settings(krwVia: .usdFx, tetherPct: 3))
        _ = start(&engine, btcKRW: "140000000", usdtKRW: "1450", at: t0)
        let firing = engine.firingAlerts(now: t0).map(\.key)
        #expect(firing.contains("fx/USDT-KRW"), "\(firing)")
        let t1 = t0.addingTimeInterval(1)
        _ = engine.handle(.quotes(.upbit, [Kit.quote(.upbit, "1400", asset: "USDT", quote: "KRW", at: t1)], .update), now: t1)
        #expect(!engine.firingAlerts(now: t1).map(\.key).contains("fx/USDT-KRW"))
    }

    @Test func aStaleTetherRateIsDroppedAtItsDeadline() {
        var engine = Kit.engine(settings(krwVia: .usdt))
        _ = start(&engine, btcKRW: "145600000", usdtKRW: "1456", at: t0)
        #expect(engine.usdtKrwRate != nil)
        let due = engine.nextDeadline(after: t0)
        #expect(due != nil)
        let late = t0.addingTimeInterval(31)
        _ = engine.advance(now: late)
        #expect(engine.usdtKrwRate == nil)
    }
}
