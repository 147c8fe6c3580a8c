import Foundation
@testable import MarketAlertCore
import Testing

/// `SilenceMachine` alone, in virtual time, over a table of firing keys (``FiringTable``) instead of the
/// engine's machines: what it holds back, its deadline (the next silence end), and what it decides when that
/// end falls due.
@Suite struct SilenceMachineTests {
    let t0 = EngineTestKit.start
    static let key = "premium/global/BTC"

    func silence(_ id: String, key: String = "premium/global/*", severity: Severity? = nil, from: TimeInterval = 0, to: TimeInterval) -> Silence {
        Silence(
            id: id, matchers: SilenceMatchers(key: key, severity: severity), startsAt: t0.addingTimeInterval(from), endsAt: t0.addingTimeInterval(to),
            comment: "test", createdBy: "test", createdAt: t0)
    }

    func firing(_ key: String = Self.key, severity: Severity = .warning, status: String = AlertEvent.Status.firing, at: Date) -> AlertEvent {
        AlertEvent(id: "decided", key: key, kind: .premium, status: status, severity: severity, at: at, summary: "\(key) \(status)")
    }

    /// Runs one input's output through the machine.
    func process(
        _ machine: inout SilenceMachine, _ events: [AlertEvent] = [], at now: Date, settled: Bool = true, alerts: FiringTable,
        ids: IDCounter = IDCounter()
    ) -> (publication: Publication, logs: [String]) {
        var out = EngineOutput()
        out.publication.events = events
        machine.process(now: now, settled: settled, alerts: alerts, makeID: ids.next, into: &out)
        let logs = out.other.compactMap { action -> String? in
            if case .log(let line) = action { return line.message }
            return nil
        }
        return (out.publication, logs)
    }

    func machine(with silences: [Silence], alerts: FiringTable) -> SilenceMachine {
        var machine = SilenceMachine()
        var out = EngineOutput()
        machine.receive(SilenceSnapshot(silences: silences), alerts: alerts, into: &out)
        return machine
    }

    @Test func aSilenceExpiringIsTheDeadlineAndRenotifiesTheKeyItHeldOnceAtItsEnd() {
        var table = FiringTable()
        var machine = machine(with: [silence("s1", to: 600)], alerts: table)
        #expect(machine.deadline(after: t0) == t0 + 600)

        // Fired while silenced: held back, its state record kept, never reported as notified.
        table.firing[Self.key] = firing(at: t0 + 1)
        let held = process(&machine, [firing(at: t0 + 1)], at: t0 + 1, alerts: table)
        #expect(held.publication.events.isEmpty)
        #expect(held.publication.silenced.map(\.silenceID) == ["s1"])
        #expect(held.publication.states.map(\.key) == [FiringRecord.storeKey(Self.key)])
        #expect(machine.firingAlerts(now: t0 + 1, alerts: table).map(\.silencedBy) == ["s1"])
        #expect(machine.firingAlerts(now: t0 + 1, alerts: table).first?.lastNotifiedAt == nil)

        // Just before its end nothing happens; at its end the key still firing is notified once, rebuilt now.
        #expect(process(&machine, at: t0 + 599, alerts: table).publication.isEmpty)
        let ended = process(&machine, at: t0 + 600, alerts: table)
        #expect(ended.publication.events.map(\.key) == [Self.key])
        #expect(ended.publication.events.first?.at == t0 + 600)
        #expect(ended.publication.endedSilences == ["s1"])
        #expect(ended.logs == ["silence s1 ended; still firing: \(Self.key)"])
        #expect(machine.firingAlerts(now: t0 + 600, alerts: table).first?.lastNotifiedAt == t0 + 600)
        // Handled: no deadline left, and the end is not handled again.
        #expect(machine.deadline(after: t0 + 600) == nil)
        #expect(process(&machine, at: t0 + 601, alerts: table).publication.isEmpty)
    }

    @Test func anEndIsNotHandledBeforeTheViewIsSettled() {
        var table = FiringTable()
        table.firing[Self.key] = firing(at: t0)
        var machine = machine(with: [silence("s1", to: 60)], alerts: table)
        _ = process(&machine, [firing(at: t0)], at: t0, alerts: table)
        let unsettled = process(&machine, at: t0 + 61, settled: false, alerts: table)
        #expect(unsettled.publication.isEmpty)
        #expect(machine.deadline(after: t0 + 30) == t0 + 60, "still to handle")
        #expect(process(&machine, at: t0 + 62, alerts: table).publication.events.map(\.key) == [Self.key])
    }

    @Test func aKeyThatResolvedWhileSilencedIsNotRenotifiedAndItsRecordIsDeleted() {
        var table = FiringTable()
        table.firing[Self.key] = firing(at: t0)
        var machine = machine(with: [silence("s1", severity: .warning, to: 600)], alerts: table)
        _ = process(&machine, [firing(at: t0)], at: t0, alerts: table)
        table.firing[Self.key] = nil
        // The resolution is matched with the severity the key fired with (its record's), so it is held too.
        let resolved = process(&machine, [firing(severity: .info, status: AlertEvent.Status.resolved, at: t0 + 5)], at: t0 + 5, alerts: table)
        #expect(resolved.publication.silenced.map(\.event.status) == [AlertEvent.Status.resolved])
        #expect(resolved.publication.deletedKeys == [FiringRecord.storeKey(Self.key)])
        let ended = process(&machine, at: t0 + 600, alerts: table)
        #expect(ended.publication.events.isEmpty)
        #expect(ended.publication.endedSilences == ["s1"])
        #expect(ended.logs == ["silence s1 ended; no key it covered is still firing"])
    }

    @Test func aKeyNoMachineCanRebuildIsRenotifiedFromItsRecordWithANewIDAndTime() {
        var table = FiringTable()
        table.firing[Self.key] = firing(at: t0)
        table.rebuildable = false
        var machine = machine(with: [silence("s1", to: 60)], alerts: table)
        _ = process(&machine, [firing(at: t0)], at: t0, alerts: table)
        let ended = process(&machine, at: t0 + 60, alerts: table, ids: IDCounter())
        #expect(ended.publication.events.map(\.id) == ["event-1"])
        #expect(ended.publication.events.map(\.at) == [t0 + 60])
        #expect(ended.publication.events.map(\.summary) == ["\(Self.key) firing"])
    }

    @Test func restoredRecordsOfKeysNotFiringNowAreDeletedAndStoppedMachinesDropTheirs() {
        let table = FiringTable(firing: [Self.key: firing(at: t0)])
        let stale = "premium/global/ETH"
        var machine = SilenceMachine()
        var out = EngineOutput()
        let restored = [
            Self.key: FiringRecord(event: firing(at: t0 - 60), since: t0 - 60, lastNotifiedAt: t0 - 60),
            stale: FiringRecord(event: firing(stale, at: t0 - 60), since: t0 - 60, lastNotifiedAt: nil),
        ]
        machine.receive(SilenceSnapshot(silences: [], restoredFiring: restored), alerts: table, into: &out)
        #expect(out.publication.deletedKeys == [FiringRecord.storeKey(stale)])
        #expect(machine.firingAlerts(now: t0, alerts: table).map(\.since) == [t0 - 60])

        // A reload removed the rule: its machine stopped without a resolution; the record goes.
        var stopped = table
        stopped.stopped = [Self.key]
        #expect(process(&machine, at: t0 + 1, alerts: stopped).publication.deletedKeys == [FiringRecord.storeKey(Self.key)])
    }
}

/// The firing keys as a table: each key's current notification (rebuilt at `now` when `rebuildable`).
struct FiringTable: FiringAlerts {
    var firing: [String: AlertEvent] = [:]
    var rebuildable = true
    var stopped: Set<String> = []

    func firingKeys() -> [String] { firing.keys.sorted() }

    func firingSubject(_ key: String) -> SilenceMatcher.Subject {
        SilenceMatcher.Subject(key: key, kind: .premium, rule: nil, asset: nil, severity: firing[key]?.severity ?? .info)
    }

    func currentFiringEvent(_ key: String, now: Date) -> AlertEvent? {
        guard rebuildable, var event = firing[key] else { return nil }
        event.at = now
        return event
    }

    func firingPhase(_ key: String) -> (since: Date, lastNotified: Date?)? { nil }

    func hasStoppedFiring(_ key: String) -> Bool { stopped.contains(key) }
}
