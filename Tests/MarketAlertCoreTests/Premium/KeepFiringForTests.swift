import Foundation
import MarketAlertCore
import Testing

/// v3 `keep_firing_for` (Prometheus's semantics): a firing alert stays firing this long after its premium
/// falls below the clear level, so a flapping premium is one notification, not a storm; 0 resolves at once.
@Suite struct KeepFiringForTests {
    typealias Kit = EngineTestKit
    let t0 = EngineTestKit.start
    let policy = LeveledAlertPolicy(levels: PremiumRule.defaultLevels, clearBelow: 0.04, keepFiringFor: .seconds(10))

    @Test func aDipBelowClearKeepsFiringAndResolvesOnlyAfterKeepFiringFor() {
        var machine = LeveledAlertStateMachine()
        #expect(machine.observe(0.5, now: t0, policy: policy) == .fire(level: 1))
        #expect(machine.observe(0.0, now: t0 + 1, policy: policy) == .none)
        #expect(machine.isFiring)
        #expect(machine.nextDeadline(policy: policy) == t0 + 11)
        // Back above clear: the dip is forgotten, and the next one counts from its own start.
        #expect(machine.observe(0.05, now: t0 + 5, policy: policy) == .none)
        #expect(machine.nextDeadline(policy: policy) == nil)
        #expect(machine.observe(0.0, now: t0 + 6, policy: policy) == .none)
        #expect(machine.observe(0.0, now: t0 + 15.9, policy: policy) == .none)
        #expect(machine.observe(0.0, now: t0 + 16, policy: policy) == .resolve)
        #expect(!machine.isFiring)
    }

    @Test func withoutAValueTheHoldNeitherResolvesNorAsksForTime() {
        var machine = LeveledAlertStateMachine()
        _ = machine.observe(0.5, now: t0, policy: policy)
        _ = machine.observe(0.0, now: t0 + 1, policy: policy)
        #expect(machine.observe(nil, now: t0 + 20, policy: policy) == .none)
        #expect(machine.isFiring)
        #expect(machine.nextDeadline(policy: policy) == nil)
        #expect(machine.observe(0.0, now: t0 + 21, policy: policy) == .resolve)
    }

    @Test func zeroResolvesAtOnceAsBefore() {
        var machine = LeveledAlertStateMachine()
        let plain = LeveledAlertPolicy(levels: PremiumRule.defaultLevels, clearBelow: 0.04)
        _ = machine.observe(0.5, now: t0, policy: plain)
        #expect(machine.observe(0.0, now: t0 + 1, policy: plain) == .resolve)
    }

    /// A state stored before v3 (no `clearingSince`) reads back as it was.
    @Test func aStoredStateWithoutTheHoldDecodes() throws {
        let json = #"{"phase":{"firing":{"level":1,"since":0,"lastNotified":0}},"lastValue":0.5}"#
        let machine = try JSONDecoder().decode(LeveledAlertStateMachine.self, from: Data(json.utf8))
        #expect(machine.isFiring)
        #expect(machine.clearingSince == nil)
    }

    /// 60,000 / 60,300 alternating every 100 ms for 11 s: with `keep_firing_for: 10s` one notification, and a
    /// resolve 10 s after the flapping stops; without it, a storm.
    func flap(keepFiringFor: Duration) -> (events: [AlertEvent], engine: AlertEngine) {
        var rule = Kit.rule("global", exchanges: [.binance, .bybit])
        rule.keepFiringFor = keepFiringFor
        var engine = Kit.engine(Kit.settings(rules: [rule]))
        var events: [AlertEvent] = []
        _ = engine.handle(.quotes(.bybit, [Kit.quote(.bybit, "60000", at: t0)], .snapshot), now: t0)
        for step in 0..<110 {
            let now = t0.addingTimeInterval(Double(step) * 0.1)
            _ = engine.advance(now: now)
            let price = step.isMultiple(of: 2) ? "60300" : "60000"
            events += Kit.events(engine.handle(.quotes(.binance, [Kit.quote(.binance, price, at: now)], .update), now: now))
            _ = engine.handle(.quotes(.bybit, [Kit.quote(.bybit, "60000", at: now)], .update), now: now)
        }
        // The flapping stops at 60,000 (no premium): time alone resolves it, at the engine's deadline.
        var now = t0.addingTimeInterval(11)
        for _ in 0..<20 {
            guard let deadline = engine.nextDeadline(after: now), deadline < t0.addingTimeInterval(40) else { break }
            now = max(now, deadline)
            events += Kit.events(engine.advance(now: now))
            _ = engine.handle(.quotes(.binance, [Kit.quote(.binance, "60000", at: now)], .update), now: now)
            _ = engine.handle(.quotes(.bybit, [Kit.quote(.bybit, "60000", at: now)], .update), now: now)
        }
        return (events, engine)
    }

    @Test func aFlappingPremiumIsOneNotificationWithKeepFiringFor() throws {
        let (events, _) = flap(keepFiringFor: .seconds(10))
        #expect(events.map(\.status) == ["firing", "resolved"])
        let resolved = try #require(events.last)
        // Resolved 10 s after the last time the premium was above the clear level (10.9 s).
        #expect(resolved.at >= t0.addingTimeInterval(20.9) && resolved.at < t0.addingTimeInterval(21.5))
    }

    @Test func withoutKeepFiringForTheSameFlappingIsAStorm() {
        let (events, _) = flap(keepFiringFor: .zero)
        #expect(events.count > 50)
    }
}
