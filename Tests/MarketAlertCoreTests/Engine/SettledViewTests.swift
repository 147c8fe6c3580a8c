import Foundation
import MarketAlertCore
import Testing

/// The engine evaluates a rule only on a settled view: every exchange it names has answered (or was
/// declared down) and the FX it needs is known. These reproduce the partial-view defects of version 1.
@Suite struct SettledViewTests {
    typealias Kit = EngineTestKit
    let t0 = EngineTestKit.start

    @Test func aSlowExchangeAtStartIsWaitedForBeforeTheKimchiRuleEvaluates() {
        let rule = Kit.rule("kimchi", exchanges: [.upbit, .bithumb, .binance], quotes: ["KRW", "USDT"])
        var engine = Kit.engine(Kit.settings(rules: [rule], fx: true))
        #expect(Kit.statuses(engine.start(now: t0)) == ["waiting for binance, bithumb, dunamu, upbit"])
        var events: [AlertEvent] = []
        events += Kit.events(engine.handle(Kit.fxRound(.dunamu, rate: "1400", at: t0), now: t0))
        // Upbit and Bithumb answer first: 100,000 vs 99,650 USD is a 0.35% spread between them alone.
        events += Kit.events(engine.handle(.quotes(.upbit, [Kit.quote(.upbit, "140000000", quote: "KRW", at: t0)], .snapshot), now: t0))
        events += Kit.events(engine.handle(.quotes(.bithumb, [Kit.quote(.bithumb, "139510000", quote: "KRW", at: t0)], .snapshot), now: t0))
        #expect(events.isEmpty, "evaluated on a partial view: \(events.map(\.summary))")
        #expect(engine.awaitedSources == ["binance"])
        // Binance answers 100 ms later, cheaper still: the one notification spans all three.
        let late = t0.addingTimeInterval(0.1)
        let actions = engine.handle(.quotes(.binance, [Kit.quote(.binance, "96618.36", at: late)], .snapshot), now: late)
        events += Kit.events(actions)
        #expect(events.count == 1)
        let premium = events.first?.premium
        #expect(premium?.low.exchange == "binance")
        #expect(premium?.high.exchange == "upbit")
        #expect(premium.map { abs($0.pct - 3.5) < 0.000_01 } == true, "pct \(premium?.pct ?? -1)")
        #expect(Kit.statuses(actions).first?.hasPrefix("ready: 3 exchanges ok") == true)
    }

    /// Coinbase is asked once per product at 7 requests a second: its first answer for 21 products takes 3 s
    /// more than one request, and it is waited for that long before being declared down.
    @Test func aPacedExchangeIsWaitedForAsLongAsItsPaceTakes() {
        let assets = (1...21).map { "A\($0)" }
        let rule = Kit.rule("global", exchanges: [.binance, .coinbase], quotes: ["USD"], assets: assets)
        var settings = Kit.settings(rules: [rule])
        settings.exchanges[.coinbase]?.restRequestsPerSecond = 7
        settings.exchanges[.coinbase]?.timeout = .seconds(5)
        settings.exchanges[.binance]?.timeout = .seconds(5)
        var engine = Kit.engine(settings)
        _ = engine.start(now: t0)
        #expect(engine.awaitedSources == ["binance", "coinbase"])
        // One request's timeout and a grace second: Binance is given up on at 6 s, Coinbase at 6 + 21/7 s.
        _ = engine.advance(now: t0.addingTimeInterval(6))
        #expect(engine.awaitedSources == ["coinbase"])
        _ = engine.advance(now: t0.addingTimeInterval(8.9))
        #expect(engine.awaitedSources == ["coinbase"])
        _ = engine.advance(now: t0.addingTimeInterval(9))
        #expect(engine.awaitedSources.isEmpty)
    }

    @Test func aRestartWithTheDearestExchangeAnsweringLastSendsNothing() {
        let rule = Kit.rule("global", exchanges: [.binance, .bybit, .okx])
        let settings = Kit.settings(rules: [rule])
        // The previous run fired at okx 0.12% over binance.
        var previous = Kit.engine(settings)
        for (id, price) in [(ExchangeID.binance, "100000"), (.bybit, "100000"), (.okx, "100120")] {
            _ = previous.handle(.quotes(id, [Kit.quote(id, price, at: t0)], .snapshot), now: t0)
        }
        var restored = AlertEngine.Restored()
        restored.premium = previous.premium.states
        #expect(restored.premium["premium/global/BTC"]?.isFiring == true)

        let t1 = t0.addingTimeInterval(60)
        var engine = Kit.engine(settings, restored: restored, at: t1)
        var events: [AlertEvent] = []
        events += Kit.events(engine.handle(.quotes(.binance, [Kit.quote(.binance, "100000", at: t1)], .snapshot), now: t1))
        events += Kit.events(engine.handle(.quotes(.bybit, [Kit.quote(.bybit, "100000", at: t1)], .snapshot), now: t1))
        let okxLate = t1.addingTimeInterval(0.004)
        events += Kit.events(engine.handle(.quotes(.okx, [Kit.quote(.okx, "100120", at: okxLate)], .snapshot), now: okxLate))
        #expect(events.isEmpty, "false notifications: \(events.map { "\($0.status) \($0.summary)" })")
        #expect(engine.premium.states["premium/global/BTC"]?.isFiring == true)
    }

    @Test func aReloadThatAddsAnExchangeWaitsForItsFirstAnswer() {
        let before = Kit.rule("global", exchanges: [.binance, .bybit])
        var engine = Kit.engine(Kit.settings(rules: [before]))
        _ = engine.handle(.quotes(.binance, [Kit.quote(.binance, "100000", at: t0)], .snapshot), now: t0)
        let fired = Kit.events(engine.handle(.quotes(.bybit, [Kit.quote(.bybit, "100120", at: t0)], .snapshot), now: t0))
        #expect(fired.map(\.status) == ["firing"])

        let t1 = t0.addingTimeInterval(10)
        let after = Kit.rule("global", exchanges: [.binance, .bybit, .okx])
        var events = Kit.events(engine.handle(.settings(Kit.settings(rules: [after])), now: t1))
        #expect(engine.awaitedSources == ["okx"])
        // Meanwhile binance and bybit converge: on the old view that would resolve.
        events += Kit.events(engine.handle(.quotes(.bybit, [Kit.quote(.bybit, "100000", at: t1)], .snapshot), now: t1))
        #expect(events.isEmpty, "evaluated before okx answered: \(events.map(\.summary))")
        // okx answers dearest: still firing, at the same level, so nothing new.
        events += Kit.events(engine.handle(.quotes(.okx, [Kit.quote(.okx, "100110", at: t1)], .snapshot), now: t1))
        #expect(events.isEmpty)
        let t2 = t1.addingTimeInterval(5)
        events += Kit.events(engine.handle(.quotes(.okx, [Kit.quote(.okx, "100010", at: t2)], .snapshot), now: t2))
        #expect(events.map(\.status) == ["resolved"])
    }

    @Test func afterAnFXChangeKRWLegsWaitForTheNewRateAndNeverMix() {
        let rule = Kit.rule("kimchi", exchanges: [.upbit, .binance], quotes: ["KRW", "USDT"])
        var settings = Kit.settings(rules: [rule], fx: true)
        var engine = Kit.engine(settings)
        _ = engine.handle(Kit.fxRound(.dunamu, rate: "1400", at: t0), now: t0)
        _ = engine.handle(.quotes(.binance, [Kit.quote(.binance, "100000", at: t0)], .snapshot), now: t0)
        let first = Kit.events(engine.handle(.quotes(.upbit, [Kit.quote(.upbit, "145600000", quote: "KRW", at: t0)], .snapshot), now: t0))
        #expect(first.first?.premium.map { abs($0.pct - 4.0) < 0.000_01 } == true)  // 145,600,000 / 1400 = 104,000

        // The FX section changes: the old provider's rate is dropped, the rule waits for the new round.
        let t1 = t0.addingTimeInterval(30)
        settings.fx.providers.removeFirst()
        var events = Kit.events(engine.handle(.settings(settings), now: t1))
        events += Kit.events(engine.handle(.quotes(.upbit, [Kit.quote(.upbit, "145600000", quote: "KRW", at: t1)], .snapshot), now: t1))
        #expect(events.isEmpty)
        #expect(engine.awaitedSources == ["frankfurter"])
        events += Kit.events(engine.handle(Kit.fxRound(.frankfurter, rate: "1456", at: t1), now: t1))
        // On the new rate alone upbit is exactly at binance: resolved, with only the new provider listed.
        #expect(events.map(\.status) == ["resolved"])
        #expect(events.first?.premium?.fx.map(\.provider) ?? [] == ["frankfurter"])
    }

    @Test func anExchangeDownAtItsFirstFetchIsDeclaredDownAndTheRuleGoesOn() {
        let rule = Kit.rule("global", exchanges: [.binance, .bybit, .okx])
        var engine = Kit.engine(Kit.settings(rules: [rule]))
        _ = engine.handle(.quotes(.binance, [Kit.quote(.binance, "100000", at: t0)], .snapshot), now: t0)
        #expect(Kit.events(engine.handle(.quotes(.bybit, [Kit.quote(.bybit, "100200", at: t0)], .snapshot), now: t0)).isEmpty)
        let actions = engine.handle(.sourceFailed(source: "okx", message: "timeout after 5s"), now: t0.addingTimeInterval(5))
        #expect(Kit.events(actions).map(\.key) == ["premium/global/BTC"])
        #expect(engine.isSettled)
    }

    @Test func anExchangeWhoseFirstFetchHangsIsGivenUpOnAfterItsTimeout() {
        let rule = Kit.rule("global", exchanges: [.binance, .bybit, .okx])
        var engine = Kit.engine(Kit.settings(rules: [rule]))  // timeouts 5 s
        _ = engine.handle(.quotes(.binance, [Kit.quote(.binance, "100000", at: t0)], .snapshot), now: t0)
        _ = engine.handle(.quotes(.bybit, [Kit.quote(.bybit, "100200", at: t0)], .snapshot), now: t0)
        #expect(engine.nextDeadline(after: t0) == t0.addingTimeInterval(6))
        #expect(Kit.events(engine.advance(now: t0.addingTimeInterval(5.9))).isEmpty)
        let actions = engine.advance(now: t0.addingTimeInterval(6))
        #expect(Kit.events(actions).map(\.key) == ["premium/global/BTC"])
        #expect(engine.isSettled)
    }
}
