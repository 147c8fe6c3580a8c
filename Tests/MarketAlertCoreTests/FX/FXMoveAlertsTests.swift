import Foundation
import Testing
@testable import MarketAlertCore

@Suite("FX move alert")
struct FXMoveAlertsTests {
    typealias T = FXTestTimes
    let alert = FXAlertSettings(base: "USD", quote: "KRW", changePct: 0.5)
    let quoted = T.kst("2026-03-10", "11:00:00")

    func rate(_ change: Double?) -> FXRate { T.rate(.dunamu, "1395.5", at: quoted, change: change) }

    /// Feeds `changes` one minute apart and returns the actions.
    func run(_ changes: [Double?], machine: inout LeveledAlertStateMachine) -> [LeveledAlertStateMachine.Action] {
        changes.enumerated().map { index, change in
            let value = FXMoveAlerts.observedValue(change.map(rate))
            return machine.observe(value, now: quoted.addingTimeInterval(Double(index) * 60), policy: FXMoveAlerts.policy(alert))
        }
    }

    @Test("Fires once at the threshold, holds inside the hysteresis band, resolves below 80% of it")
    func hysteresis() {
        var machine = LeveledAlertStateMachine()
        let actions = run([0.2, 0.62, 0.7, 0.45, 0.41, 0.55, 0.39, 0.3, 0.5], machine: &machine)
        #expect(actions == [.none, .fire(level: 0), .none, .none, .none, .none, .resolve, .none, .fire(level: 0)])
    }

    @Test("A fall counts like a rise")
    func negativeMove() {
        var machine = LeveledAlertStateMachine()
        #expect(run([-0.55, -0.3], machine: &machine) == [.fire(level: 0), .resolve])
    }

    @Test("No change known (fallback provider, or no fresh rate) neither fires nor resolves")
    func missingChange() {
        var machine = LeveledAlertStateMachine()
        #expect(run([nil, 0.6, nil, nil, 0.1], machine: &machine) == [.none, .fire(level: 0), .none, .none, .resolve])
        #expect(FXMoveAlerts.observedValue(nil) == nil)
        #expect(FXMoveAlerts.observedValue(rate(.nan)) == nil)
    }

    @Test("Firing event: key, kind, detail and the summary line")
    func firingEvent() throws {
        let now = quoted.addingTimeInterval(30)
        let event = try #require(FXMoveAlerts.event(id: "evt-1", alert: alert, rate: rate(0.62), action: .fire(level: 0), now: now))
        #expect(event.key == "fx/USD-KRW")
        #expect(event.kind == .fx)
        #expect(event.status == "firing")
        #expect(event.severity == .notice)
        #expect(event.at == now)
        #expect(event.fx == FXDetail(pair: "USD/KRW", rate: Decimal(string: "1395.5") ?? 0, provider: "dunamu", at: quoted, changePct: 0.62))
        #expect(event.summary == "USD/KRW 1,395.5 moved +0.62% vs previous close (dunamu, 2026-03-10 11:00 KST) >= 0.5%")
        let fall = try #require(FXMoveAlerts.event(id: "evt-2", alert: alert, rate: rate(-0.734), action: .fire(level: 0), now: now))
        #expect(fall.summary == "USD/KRW 1,395.5 moved -0.734% vs previous close (dunamu, 2026-03-10 11:00 KST) <= -0.5%")
    }

    @Test("Resolved event")
    func resolvedEvent() throws {
        let event = try #require(FXMoveAlerts.event(id: "evt-3", alert: alert, rate: rate(0.31), action: .resolve, now: quoted))
        #expect(event.status == "resolved")
        #expect(event.severity == .info)
        #expect(event.summary == "USD/KRW 1,395.5 moved +0.31% vs previous close (dunamu, 2026-03-10 11:00 KST), back within ±0.4% (resolved; fired at ±0.5%)")
        #expect(FXMoveAlerts.event(id: "x", alert: alert, rate: rate(0.31), action: .none, now: quoted) == nil)
        #expect(FXMoveAlerts.event(id: "x", alert: alert, rate: nil, action: .resolve, now: quoted) == nil)
    }

    @Test("Events match the JSON schema's fx shape")
    func json() throws {
        let event = try #require(FXMoveAlerts.event(id: "evt-1", alert: alert, rate: rate(0.62), action: .fire(level: 0), now: quoted))
        let line = try event.jsonLine()
        #expect(line.contains("\"kind\":\"fx\""))
        #expect(line.contains("\"fx\":{"))
        #expect(line.contains("\"pair\":\"USD\\/KRW\"") || line.contains("\"pair\":\"USD/KRW\""))
        #expect(line.contains("\"change_pct\":0.62"))
    }

    @Test("Only USD/<currency> pairs can be watched")
    func unsupportedPairs() {
        let alerts = [alert, FXAlertSettings(base: "EUR", quote: "KRW", changePct: 1), FXAlertSettings(base: "USD", quote: "USD", changePct: 1)]
        let issues = FXMoveAlerts.issues(alerts)
        #expect(issues.map(\.path) == ["fx.alerts[1].pair", "fx.alerts[2].pair"])
        #expect(issues.allSatisfy { $0.severity == .warning })
    }
}
