import Foundation

/// FX in the engine: the providers' last round (`FXRateBook`), the failover's selection through the jump
/// guard (`FXMachine+JumpGuard.swift`), and the FX move alerts. Owns its state and its slice of what is
/// restored at start (`fx` alert states); `receive`/`refresh` decide, `deadline` says when a selected rate
/// stops being fresh. The premium machines read `selected` through a `ConversionBasis`.
struct FXMachine: Sendable {
    private(set) var book = FXRateBook()
    private(set) var failover: FXFailover?
    /// The `USD/<currency>` rates in use, by currency.
    private(set) var selected: [String: FXRate] = [:]
    /// The FX move alerts' state machines, by key.
    private(set) var moveAlerts: [String: LeveledAlertStateMachine]
    /// The jump guard: the last accepted rate per currency, and a jump held for confirmation.
    var accepted: [String: FXRate] = [:]
    var suspect: [String: FXRate] = [:]
    /// When each held jump was first seen (the hold is bounded: `jumpHold`).
    var suspectSince: [String: Date] = [:]
    /// Rates accepted on their own provider's word after a hold, until another provider agrees: an
    /// implausible premium converted with one is that provider's data problem, not the exchange's.
    private(set) var unconfirmed: [String: FXRate] = [:]
    /// Per currency, the FX provider whose `source/<provider>/data` alert is firing for a held jump.
    private(set) var jumpAlerts: [String: String] = [:]

    init(restored: [String: LeveledAlertStateMachine]) {
        moveAlerts = restored
    }

    /// An FX round ended: its book and failover replace the last.
    mutating func receive(_ book: FXRateBook, failover: FXFailover) {
        self.book = book
        self.failover = failover
    }

    /// Re-selects the fresh rates at `now` through the jump guard; logs provider switches; true when the
    /// selection changed. `dataProblems`: the exchanges (and providers) with a premium data alert firing.
    @discardableResult
    mutating func refresh(context: MachineContext, dataProblems: Set<ExchangeID>, into out: inout EngineOutput) -> Bool {
        guard let failover else { return false }
        let selection = guardJumps(failover.select(book, now: context.now), context: context, dataProblems: dataProblems, into: &out)
        guard selection != selected else { return false }
        for currency in Set(selected.keys).union(selection.keys).sorted() {
            let before = selected[currency]?.provider
            let after = selection[currency]
            guard before != after?.provider else { continue }
            if let after {
                out.log(
                    .info, "USD/\(currency) now from \(after.provider): \(after.rate) quoted \(Timestamp.rfc3339(after.at)) (was \(before ?? "none"))",
                    subject: after.provider)
            } else {
                out.log(.warning, "USD/\(currency): no provider has a fresh rate; prices in \(currency) cannot be converted (was \(before ?? "none"))")
            }
        }
        selected = selection
        return true
    }

    /// The next instant a selected rate stops being fresh.
    func deadline() -> Date? {
        guard let failover else { return nil }
        // A loop, not `compactMap(...).min()`: the engine loop asks after every input (each stream quote).
        var earliest: Date?
        for (currency, rate) in selected {
            guard let profile = failover.chain.first(where: { $0.kind.rawValue == rate.provider && $0.serves(currency) }),
                  let next = profile.nextPublication(after: rate.at)
            else { continue }
            let due = next.addingTimeInterval(failover.maxAge.seconds + 0.001)
            if earliest.map({ due < $0 }) ?? true { earliest = due }
        }
        return earliest
    }

    /// The FX move alerts against the selection at `now`.
    mutating func evaluateMoveAlerts(context: MachineContext, into out: inout EngineOutput) {
        let now = context.now
        for alert in context.settings.fx.alerts where FXMoveAlerts.isSupported(alert) {
            let key = FXMoveAlerts.key(alert)
            var machine = moveAlerts[key] ?? LeveledAlertStateMachine()
            let before = machine.phase
            let rate = selected[alert.quote]
            let action = machine.observe(FXMoveAlerts.observedValue(rate), now: now, policy: FXMoveAlerts.policy(alert))
            moveAlerts[key] = machine
            let event = FXMoveAlerts.event(id: context.makeID(), alert: alert, rate: rate, action: action, now: now)
            if machine.phase != before || event != nil {
                out.publication.states.append(StateRecord.encode(machine, key: key, kind: "fx"))
            }
            if let event { out.publication.events.append(event) }
        }
    }

    /// A reload with another FX configuration: a new poller starts from nothing, so the old configuration's
    /// rates are never used to convert.
    mutating func forgetRates() {
        book = FXRateBook()
        failover = nil
        selected = [:]
    }

    /// Drops the move alerts the settings no longer have; returns their keys (deleted from the store).
    mutating func retainMoveAlerts(_ alerts: [FXAlertSettings]) -> [String] {
        let live = Set(alerts.map(FXMoveAlerts.key))
        let gone = moveAlerts.keys.filter { !live.contains($0) }.sorted()
        for key in gone { moveAlerts[key] = nil }
        return gone
    }

    /// A takeover: the move alerts become the store's (those the settings still have).
    mutating func adopt(_ restored: [String: LeveledAlertStateMachine], alerts: [FXAlertSettings]) {
        let live = Set(alerts.map(FXMoveAlerts.key))
        moveAlerts = restored.filter { live.contains($0.key) }
    }
}

extension FXMachine {
    /// `candidate` becomes the accepted rate: a held jump is over (its data alert resolves).
    mutating func accept(_ candidate: FXRate, _ currency: String, context: MachineContext, dataProblems: Set<ExchangeID>, into out: inout EngineOutput) {
        accepted[currency] = candidate
        suspect[currency] = nil
        suspectSince[currency] = nil
        resolveJumpAlert(currency, context: context, dataProblems: dataProblems, into: &out)
    }

    mutating func raiseJumpAlert(_ currency: String, provider: String) { jumpAlerts[currency] = provider }

    mutating func setUnconfirmed(_ rate: FXRate?, _ currency: String) { unconfirmed[currency] = rate }

    mutating func resolveJumpAlert(_ currency: String, context: MachineContext, dataProblems: Set<ExchangeID>, into out: inout EngineOutput) {
        guard let provider = jumpAlerts.removeValue(forKey: currency) else { return }
        // The premium guard may have its own alert under the same key (a rate accepted on its own word).
        guard !dataProblems.contains(ExchangeID(provider)) else { return }
        out.publication.events.append(DataProblemEvents.event(
            id: context.makeID(), ExchangeID(provider), firing: false, summary: "\(provider) USD/\(currency) no longer held",
            error: nil, severity: context.settings.sourceAlerts.severity, now: context.now))
    }
}
