import Foundation
import MarketAlertCore
import Testing

/// Silences in the pure engine, in virtual time: held back but state kept, one notification at the end for a
/// key still firing, nothing for one that resolved meanwhile, ends handled once and only on a settled view.
@Suite struct EngineSilenceTests {
    typealias Kit = EngineTestKit
    let t0 = EngineTestKit.start

    func silence(
        _ id: String, _ matchers: SilenceMatchers, from: TimeInterval = 0, to: TimeInterval, handled: Bool = false, created: TimeInterval = 0
    ) -> Silence {
        Silence(
            id: id, matchers: matchers, startsAt: t0.addingTimeInterval(from), endsAt: t0.addingTimeInterval(to), comment: "test",
            createdBy: "test", createdAt: t0.addingTimeInterval(created), endHandledAt: handled ? t0 : nil)
    }

    /// One rule over binance and bybit; sources are never silent long enough to alert in these tests.
    var settings: Settings {
        var settings = Kit.settings(rules: [Kit.rule("global", exchanges: [.binance, .bybit])])
        settings.sourceAlerts.afterSilence = .seconds(86_400)
        settings.premium.maxQuoteAge = .seconds(3600)
        return settings
    }

    /// Both exchanges quote at `t`, bybit at `bybit` (binance 100000).
    func quotes(_ engine: inout AlertEngine, bybit: String, at t: Date) -> [EngineAction] {
        _ = engine.handle(.quotes(.binance, [Kit.quote(.binance, "100000", at: t)], .snapshot), now: t)
        return engine.handle(.quotes(.bybit, [Kit.quote(.bybit, bybit, at: t)], .snapshot), now: t)
    }

    func publication(_ actions: [EngineAction]) -> Publication {
        var result = Publication()
        for case .publish(let publication) in actions { result.append(publication) }
        return result
    }

    @Test func aSilencedKeyKeepsItsStateAndItsNotificationsAreHeldBack() {
        var engine = Kit.engine(settings)
        _ = engine.handle(.silences(SilenceSnapshot(silences: [silence("s1", SilenceMatchers(key: "premium/global/*"), to: 3600)])), now: t0)
        _ = quotes(&engine, bybit: "100000", at: t0)
        let fired = publication(quotes(&engine, bybit: "100060", at: t0.addingTimeInterval(1)))
        #expect(fired.events.isEmpty)
        #expect(fired.silenced.map(\.event.key) == ["premium/global/BTC"])
        #expect(fired.silenced.first?.silenceID == "s1")
        #expect(fired.states.contains { $0.key == "premium/global/BTC" }, "the state is committed all the same")
        #expect(engine.premium.states["premium/global/BTC"]?.isFiring == true)
        let alert = engine.firingAlerts(now: t0.addingTimeInterval(1)).first
        #expect(alert?.key == "premium/global/BTC")
        #expect(alert?.silencedBy == "s1")
        #expect(alert?.lastNotifiedAt == nil)
        #expect(alert?.severity == .notice)

        // Escalation while silenced: held back too.
        let escalated = publication(quotes(&engine, bybit: "100120", at: t0.addingTimeInterval(2)))
        #expect(escalated.events.isEmpty && escalated.silenced.map(\.event.severity) == [.warning])

        // The silence ends: exactly one notification at once, at the current level, not silenced.
        #expect(engine.nextDeadline(after: t0.addingTimeInterval(2)) == t0.addingTimeInterval(3600))
        let ended = publication(engine.advance(now: t0.addingTimeInterval(3600)))
        #expect(ended.events.map(\.key) == ["premium/global/BTC"])
        #expect(ended.events.first?.status == "firing")
        #expect(ended.events.first?.severity == .warning)
        #expect(ended.events.first?.summary.contains("still >=") == true)
        #expect(ended.endedSilences == ["s1"])
        #expect(engine.firingAlerts(now: t0.addingTimeInterval(3600)).first?.lastNotifiedAt == t0.addingTimeInterval(3600))
        // And never again for that silence.
        #expect(publication(engine.advance(now: t0.addingTimeInterval(3601))).events.isEmpty)
        #expect(engine.nextDeadline(after: t0.addingTimeInterval(3601)) != t0.addingTimeInterval(3600))
    }

    @Test func aKeyThatResolvedWhileSilencedSendsNothing() {
        var engine = Kit.engine(settings)
        _ = quotes(&engine, bybit: "100000", at: t0)
        // Fires (delivered), then a severity-specific silence on the level it fired with.
        #expect(publication(quotes(&engine, bybit: "100060", at: t0.addingTimeInterval(1))).events.map(\.severity) == [.notice])
        _ = engine.handle(.silences(SilenceSnapshot(silences: [silence("s1", SilenceMatchers(key: "premium/*", severity: .notice), to: 600)])), now: t0.addingTimeInterval(2))
        // The resolution (severity info) is held back: the key fired as a notice.
        let resolved = publication(quotes(&engine, bybit: "100010", at: t0.addingTimeInterval(3)))
        #expect(resolved.events.isEmpty)
        #expect(resolved.silenced.map(\.event.status) == ["resolved"])
        #expect(resolved.deletedKeys.contains(FiringRecord.storeKey("premium/global/BTC")))
        let ended = publication(engine.advance(now: t0.addingTimeInterval(600)))
        #expect(ended.events.isEmpty)
        #expect(ended.endedSilences == ["s1"])
    }

    @Test func anotherActiveSilenceKeepsHoldingTheKeyAtTheFirstOnesEnd() {
        var engine = Kit.engine(settings)
        _ = engine.handle(.silences(SilenceSnapshot(silences: [
            silence("short", SilenceMatchers(key: "premium/global/BTC"), to: 60),
            silence("long", SilenceMatchers(key: "premium/*"), to: 600, created: 1),
        ])), now: t0)
        _ = quotes(&engine, bybit: "100000", at: t0)
        #expect(publication(quotes(&engine, bybit: "100060", at: t0.addingTimeInterval(1))).silenced.map(\.silenceID) == ["short"])
        let first = publication(engine.advance(now: t0.addingTimeInterval(60)))
        #expect(first.events.isEmpty && first.endedSilences == ["short"])
        #expect(engine.firingAlerts(now: t0.addingTimeInterval(60)).first?.silencedBy == "long")
        _ = quotes(&engine, bybit: "100060", at: t0.addingTimeInterval(300))  // keeps prices fresh
        let second = publication(engine.advance(now: t0.addingTimeInterval(600)))
        #expect(second.events.map(\.key) == ["premium/global/BTC"])
    }

    @Test func anEndAlreadyHandledBeforeARestartIsNotHandledAgain() {
        var engine = Kit.engine(settings)
        _ = quotes(&engine, bybit: "100060", at: t0)
        let snapshot = SilenceSnapshot(silences: [silence("s1", SilenceMatchers(key: "*"), from: -600, to: -60, handled: true)])
        #expect(publication(engine.handle(.silences(snapshot), now: t0.addingTimeInterval(1))).endedSilences.isEmpty)
        // A snapshot that does not yet carry the handled mark (read before it was written) changes nothing.
        let unhandled = SilenceSnapshot(silences: [silence("s1", SilenceMatchers(key: "*"), from: -600, to: -60)])
        #expect(publication(engine.handle(.silences(unhandled), now: t0.addingTimeInterval(2))).events.isEmpty)
    }

    @Test func anEndThatFellDueWhileDownIsHandledOnceTheViewIsSettled() {
        let settings = settings
        var restored = AlertEngine.Restored()
        var machine = LeveledAlertStateMachine()
        _ = machine.observe(0.06, now: t0.addingTimeInterval(-900), policy: LeveledAlertPolicy(settings.premium.rules[0]))
        restored.premium["premium/global/BTC"] = machine
        var engine = Kit.engine(settings, restored: restored)
        let snapshot = SilenceSnapshot(silences: [silence("s1", SilenceMatchers(key: "premium/*"), from: -600, to: -60)])
        // Not settled yet: the end waits (no premium to show, and a view of one exchange is not the market).
        #expect(publication(engine.handle(.silences(snapshot), now: t0)).endedSilences.isEmpty)
        _ = engine.handle(.quotes(.binance, [Kit.quote(.binance, "100000", at: t0)], .snapshot), now: t0)
        let settled = publication(engine.handle(.quotes(.bybit, [Kit.quote(.bybit, "100060", at: t0)], .snapshot), now: t0))
        #expect(settled.endedSilences == ["s1"])
        #expect(settled.events.map(\.key) == ["premium/global/BTC"])
        #expect(settled.events.first?.severity == .notice)
    }

    @Test func aSilenceExpiredBeforeItStartedHasNoEndToHandle() {
        var engine = Kit.engine(settings)
        _ = quotes(&engine, bybit: "100060", at: t0)
        let expired = silence("s1", SilenceMatchers(key: "*"), from: 5, to: 5)
        let actions = publication(engine.handle(.silences(SilenceSnapshot(silences: [expired])), now: t0.addingTimeInterval(5)))
        #expect(actions.events.isEmpty)
        #expect(actions.endedSilences == ["s1"])
    }

    @Test func restoredFiringRecordsKeepTheAlertsViewAndDropKeysNoLongerFiring() throws {
        let settings = settings
        var first = Kit.engine(settings)
        _ = quotes(&first, bybit: "100000", at: t0)
        let fired = publication(quotes(&first, bybit: "100060", at: t0.addingTimeInterval(1)))
        let recordState = try #require(fired.states.first { $0.kind == FiringRecord.kind })
        let record = try JSONDecoder().decode(FiringRecord.self, from: recordState.data)
        #expect(recordState.key == FiringRecord.storeKey("premium/global/BTC"))

        var restored = AlertEngine.Restored()
        restored.premium = first.premium.states
        var second = Kit.engine(settings, restored: restored, at: t0.addingTimeInterval(10))
        let orphan = FiringRecord(event: record.event, since: t0, lastNotifiedAt: t0)
        var gone = orphan
        gone.event.key = "premium/removed/BTC"
        let out = publication(second.handle(
            .silences(SilenceSnapshot(silences: [], restoredFiring: ["premium/global/BTC": record, "premium/removed/BTC": gone])),
            now: t0.addingTimeInterval(10)))
        #expect(out.deletedKeys == [FiringRecord.storeKey("premium/removed/BTC")])
        let alert = try #require(second.firingAlerts(now: t0.addingTimeInterval(10)).first)
        #expect(alert.since == t0.addingTimeInterval(1))
        #expect(alert.lastNotifiedAt == t0.addingTimeInterval(1))
        #expect(alert.event?.premium?.pct == record.event.premium?.pct)
    }
}
