import Foundation
import MarketAlertCore
import Testing

/// Time alone: `for`, silence and IPO boundaries come from `nextDeadline`, never from a fixed tick.
@Suite struct EngineDeadlineTests {
    typealias Kit = EngineTestKit
    let t0 = EngineTestKit.start

    @Test func forFiresExactlyAtItsDeadlineAndAnIdleEngineHasOnlyTheSilenceDeadline() {
        var settings = Kit.settings(rules: [Kit.rule("global", exchanges: [.binance, .bybit], forDuration: .seconds(30))])
        settings.sourceAlerts.afterSilence = .seconds(600)
        settings.premium.maxQuoteAge = .seconds(120)
        var engine = Kit.engine(settings)
        _ = engine.handle(.quotes(.binance, [Kit.quote(.binance, "100000", at: t0)], .snapshot), now: t0)
        // Until bybit answers, the engine waits for it at most its timeout and a second.
        #expect(engine.nextDeadline(after: t0) == t0.addingTimeInterval(6))
        _ = engine.handle(.quotes(.bybit, [Kit.quote(.bybit, "100000", at: t0)], .snapshot), now: t0)
        // Settled and nothing pending: the only deadline is silence, ten minutes out.
        #expect(engine.nextDeadline(after: t0) == t0.addingTimeInterval(600))
        let t1 = t0.addingTimeInterval(1)
        _ = engine.handle(.quotes(.bybit, [Kit.quote(.bybit, "100200", at: t1)], .snapshot), now: t1)
        #expect(engine.nextDeadline(after: t1) == t1.addingTimeInterval(30))
        #expect(Kit.events(engine.advance(now: t1.addingTimeInterval(29))).isEmpty)
        let fired = Kit.events(engine.advance(now: t1.addingTimeInterval(30)))
        #expect(fired.map(\.status) == ["firing"])
        #expect(fired.first?.at == t1.addingTimeInterval(30))
    }

    @Test func aPendingConditionWhoseQuoteGoesStaleStartsOver() {
        var settings = Kit.settings(rules: [Kit.rule("global", exchanges: [.binance, .bybit], forDuration: .seconds(60))])
        settings.premium.maxQuoteAge = .seconds(30)
        var engine = Kit.engine(settings)
        _ = engine.handle(.quotes(.binance, [Kit.quote(.binance, "100000", at: t0)], .snapshot), now: t0)
        _ = engine.handle(.quotes(.bybit, [Kit.quote(.bybit, "100200", at: t0)], .snapshot), now: t0)
        // The quotes expire before `for` would: the engine wakes then, and the pending condition lapses.
        let deadline = engine.nextDeadline(after: t0)
        #expect(deadline.map { abs($0.timeIntervalSince(t0) - 30) < 0.01 } == true)
        _ = engine.advance(now: deadline ?? t0)
        #expect(engine.premium.states["premium/global/BTC"]?.phase == .inactive)
    }

    @Test func anExchangeThatNeverAnswersIsReportedSilentCountingFromStart() {
        var settings = Kit.settings(rules: [Kit.rule("global", exchanges: [.binance, .bybit])])
        settings.sourceAlerts.afterSilence = .seconds(300)
        var engine = Kit.engine(settings)
        _ = engine.handle(.quotes(.binance, [Kit.quote(.binance, "100000", at: t0)], .snapshot), now: t0)
        #expect(engine.nextDeadline(after: t0) == t0.addingTimeInterval(6))  // bybit given up on at its timeout
        let t1 = t0.addingTimeInterval(200)
        _ = engine.handle(.quotes(.binance, [Kit.quote(.binance, "100000", at: t1)], .snapshot), now: t1)
        let events = Kit.events(engine.advance(now: t0.addingTimeInterval(300)))
        #expect(events.map(\.key) == ["source/bybit"])
        #expect(events.first?.summary.contains("no success yet") == true)
    }

    @Test func aRestartIsNotJudgedOnThePreviousRunsLastSuccess() {
        var settings = Kit.settings(rules: [Kit.rule("global", exchanges: [.binance, .bybit])])
        settings.sourceAlerts.afterSilence = .seconds(300)
        var old = SourceHealth(since: t0)
        _ = old.recordSuccess(now: t0)
        var restored = AlertEngine.Restored()
        restored.sources = ["source/binance": old, "source/bybit": old]
        let later = t0.addingTimeInterval(7_200)  // two hours down
        var engine = Kit.engine(settings, restored: restored, at: later)
        #expect(Kit.events(engine.advance(now: later.addingTimeInterval(1))).isEmpty)
        let t1 = later.addingTimeInterval(1)
        _ = engine.handle(.quotes(.binance, [Kit.quote(.binance, "100000", at: t1)], .snapshot), now: t1)
        _ = engine.handle(.quotes(.bybit, [Kit.quote(.bybit, "100000", at: t1)], .snapshot), now: t1)
        #expect(engine.nextDeadline(after: t1) == t1.addingTimeInterval(300))
    }
}

/// A quiet market on a live stream sends nothing for minutes, and REST is paused meanwhile: that is not
/// silence. When the stream goes down, silence counts from that moment.
@Suite struct QuietStreamTests {
    typealias Kit = EngineTestKit
    let t0 = EngineTestKit.start

    @Test func aQuietLiveStreamIsNotSilentAndADownOneCountsFromItsFall() {
        var settings = Kit.settings(rules: [Kit.rule("global", exchanges: [.binance, .bybit])])
        settings.sourceAlerts.afterSilence = .seconds(300)
        var engine = Kit.engine(settings)
        _ = engine.handle(.quotes(.binance, [Kit.quote(.binance, "100000", at: t0)], .snapshot), now: t0)
        _ = engine.handle(.quotes(.bybit, [Kit.quote(.bybit, "100000", at: t0)], .snapshot), now: t0)
        _ = engine.handle(.stream(.binance, live: true, reason: nil), now: t0)
        _ = engine.handle(.stream(.bybit, live: true, reason: nil), now: t0)
        #expect(engine.nextDeadline(after: t0) == nil)
        #expect(Kit.events(engine.advance(now: t0.addingTimeInterval(3_600))).isEmpty)
        let down = t0.addingTimeInterval(3_600)
        _ = engine.handle(.stream(.bybit, live: false, reason: "stale"), now: down)
        #expect(engine.nextDeadline(after: down) == down.addingTimeInterval(300))
        #expect(Kit.events(engine.advance(now: down.addingTimeInterval(299))).isEmpty)
        #expect(Kit.events(engine.advance(now: down.addingTimeInterval(300))).map(\.key) == ["source/bybit"])
    }
}
