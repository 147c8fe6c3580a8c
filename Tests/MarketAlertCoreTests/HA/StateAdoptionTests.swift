import Foundation
import MarketAlertCore
import Testing

/// A takeover: the standby's engine adopts what the previous leader committed and evaluates at once, so
/// what the standby decided on its own (and published nowhere) never suppresses or repeats a notification.
@Suite struct StateAdoptionTests {
    typealias Kit = EngineTestKit
    let t0 = EngineTestKit.start
    let settings = EngineTestKit.settings(rules: [EngineTestKit.rule("global", exchanges: [.binance, .bybit])])

    func feed(_ engine: inout AlertEngine, binance: String, bybit: String, at now: Date) -> [AlertEvent] {
        Kit.events(engine.handle(.quotes(.binance, [Kit.quote(.binance, binance, at: now)], .snapshot), now: now))
            + Kit.events(engine.handle(.quotes(.bybit, [Kit.quote(.bybit, bybit, at: now)], .snapshot), now: now))
    }

    /// The standby saw the premium fire (a notice nobody stored: the leader died first). Without adoption its
    /// engine would hold "notice firing" and never notify it; adopting the stored "not firing" re-decides it.
    @Test func aTransitionOnlyTheStandbySawIsNotifiedAtTakeover() {
        var standby = Kit.engine(settings)
        let seen = feed(&standby, binance: "100000", bybit: "100060", at: t0)
        #expect(seen.map(\.severity) == [.notice])  // decided, published nowhere (a standby)
        let actions = standby.adopt(AlertEngine.Restored(), now: t0.addingTimeInterval(2))
        let notified = Kit.events(actions)
        #expect(notified.map(\.severity) == [.notice])
        #expect(notified.first?.key == "premium/global/BTC")
        #expect(notified.first?.id != seen.first?.id)
    }

    /// The old leader notified the notice and stored it; the standby's engine, started later, saw nothing
    /// fire. After adoption the notice is not repeated; the warning reached during the gap is notified.
    @Test func whatTheOldLeaderNotifiedIsNotRepeatedAndTheGapIsNotified() {
        var leader = Kit.engine(settings)
        #expect(feed(&leader, binance: "100000", bybit: "100060", at: t0).map(\.severity) == [.notice])
        var stored = AlertEngine.Restored()
        stored.premium = leader.premium.states

        let t1 = t0.addingTimeInterval(30)
        var standby = Kit.engine(settings, at: t1)
        _ = feed(&standby, binance: "100000", bybit: "100000", at: t1)  // flat when it started
        _ = feed(&standby, binance: "100000", bybit: "100060", at: t1.addingTimeInterval(1))  // its own notice, unpublished
        _ = feed(&standby, binance: "100000", bybit: "100060", at: t1.addingTimeInterval(2))
        let takeover = t1.addingTimeInterval(3)
        #expect(Kit.events(standby.adopt(stored, now: takeover)).isEmpty, "the stored notice is not repeated")

        let gap = feed(&standby, binance: "100000", bybit: "100120", at: takeover.addingTimeInterval(1))
        #expect(gap.map(\.severity) == [.warning])
        #expect(standby.premium.states["premium/global/BTC"] != nil)
    }

    /// Adoption keeps the live view: no waiting for the sources again, and the premium is known at once.
    @Test func theLiveViewIsKept() {
        var standby = Kit.engine(settings)
        _ = feed(&standby, binance: "100000", bybit: "100020", at: t0)
        #expect(standby.isSettled)
        _ = standby.adopt(AlertEngine.Restored(), now: t0.addingTimeInterval(1))
        #expect(standby.isSettled)
        #expect(standby.premium.latest(in: standby.book)["premium/global/BTC"] != nil)
    }
}
