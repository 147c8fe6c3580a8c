import Foundation
import MarketAlertCore
import Testing

@Suite struct LeveledAlertStateMachineTests {
    let start = Date(timeIntervalSince1970: 1_700_000_000)
    let policy = LeveledAlertPolicy(levels: PremiumRule.defaultLevels, clearBelow: 0.04, forDuration: .zero, repeatInterval: .seconds(3600))

    @Test func crossesNoticeThenWarningThenClears() {
        var machine = LeveledAlertStateMachine()
        #expect(machine.observe(0.03, now: start, policy: policy) == .none)
        #expect(machine.observe(0.06, now: start + 5, policy: policy) == .fire(level: 0))
        #expect(machine.observe(0.12, now: start + 10, policy: policy) == .escalate(level: 1))
        #expect(machine.observe(0.045, now: start + 15, policy: policy) == .none)
        #expect(machine.observe(0.039, now: start + 20, policy: policy) == .resolve)
        #expect(!machine.isFiring)
    }

    @Test func flappingAroundTheWarningLevelNotifiesTwiceNotEveryCrossing() {
        var machine = LeveledAlertStateMachine()
        var notifications: [LeveledAlertStateMachine.Action] = []
        for step in 0..<200 {
            let value = step.isMultiple(of: 2) ? 0.099 : 0.101
            let action = machine.observe(value, now: start + TimeInterval(step * 5), policy: policy)
            if action != .none { notifications.append(action) }
        }
        // 0.099 fires the notice level, 0.101 escalates to warning once; 1000 s < repeat_interval, so nothing else.
        #expect(notifications == [.fire(level: 0), .escalate(level: 1)])
    }

    @Test func flappingAcrossTheLowestLevelInsideTheHysteresisGapStaysQuiet() {
        var machine = LeveledAlertStateMachine()
        var count = 0
        for step in 0..<100 {
            let value = step.isMultiple(of: 2) ? 0.045 : 0.055
            if machine.observe(value, now: start + TimeInterval(step), policy: policy) != .none { count += 1 }
        }
        #expect(count == 1)
    }

    @Test func forDurationMustHoldBeforeFiring() {
        let waiting = LeveledAlertPolicy(levels: PremiumRule.defaultLevels, clearBelow: 0.04, forDuration: .seconds(30))
        var machine = LeveledAlertStateMachine()
        #expect(machine.observe(0.2, now: start, policy: waiting) == .none)
        #expect(machine.nextDeadline(policy: waiting) == start + 30)
        #expect(machine.observe(0.2, now: start + 29, policy: waiting) == .none)
        #expect(machine.observe(0.2, now: start + 30, policy: waiting) == .fire(level: 1))
    }

    @Test func pendingResetsWhenTheConditionBreaksOrDataGoesMissing() {
        let waiting = LeveledAlertPolicy(levels: PremiumRule.defaultLevels, clearBelow: 0.04, forDuration: .seconds(30))
        var machine = LeveledAlertStateMachine()
        _ = machine.observe(0.2, now: start, policy: waiting)
        #expect(machine.observe(nil, now: start + 10, policy: waiting) == .none)
        #expect(machine.phase == .inactive)
        _ = machine.observe(0.2, now: start + 20, policy: waiting)
        #expect(machine.observe(0.01, now: start + 25, policy: waiting) == .none)
        #expect(machine.observe(0.2, now: start + 50, policy: waiting) == .none)
        #expect(machine.observe(0.2, now: start + 80, policy: waiting) == .fire(level: 1))
    }

    @Test func missingValueNeverFiresOrResolves() {
        var machine = LeveledAlertStateMachine()
        #expect(machine.observe(nil, now: start, policy: policy) == .none)
        _ = machine.observe(0.2, now: start, policy: policy)
        #expect(machine.observe(nil, now: start + 7200, policy: policy) == .none)
        #expect(machine.isFiring)
    }

    @Test func repeatIntervalRenotifiesAtTheHighestLevel() {
        var machine = LeveledAlertStateMachine()
        _ = machine.observe(0.2, now: start, policy: policy)
        #expect(machine.observe(0.07, now: start + 3599, policy: policy) == .none)
        #expect(machine.observe(0.07, now: start + 3600, policy: policy) == .repeatNotification(level: 1))
        #expect(machine.nextDeadline(policy: policy) == start + 7200)
    }

    @Test func stateSurvivesAnEncodeDecodeRoundTrip() throws {
        var machine = LeveledAlertStateMachine()
        _ = machine.observe(0.2, now: start, policy: policy)
        let data = try JSONEncoder().encode(machine)
        var restored = try JSONDecoder().decode(LeveledAlertStateMachine.self, from: data)
        #expect(restored.phase == machine.phase)
        #expect(restored.observe(0.2, now: start + 10, policy: policy) == .none)
    }
}
