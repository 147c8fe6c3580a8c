import Foundation

extension AlertEngine {
    /// An FX round ended: the new selection feeds every rule that needs FX at once (all KRW legs on the new
    /// rate, never a mix), and the FX move alerts.
    mutating func receiveFX(_ book: FXRateBook, failover: FXFailover, now: Date, into out: inout EngineOutput) {
        fxBook = book
        fxFailover = failover
        let firstRound = gate.answered(SettleGate.fx)
        if firstRound && gate.isSettled { out.log(.info, "every source has answered; evaluating") }
        let changed = refreshFXSelection(now: now, into: &out)
        if changed || firstRound { evaluatePremiums(involving: nil, now: now, into: &out) }
        evaluateFXAlerts(now: now, into: &out)
    }

    /// Re-selects the fresh rates at `now`; logs provider switches; true when the selection changed.
    @discardableResult
    mutating func refreshFXSelection(now: Date, into out: inout EngineOutput) -> Bool {
        guard let fxFailover else { return false }
        let selection = guardFX(fxFailover.select(fxBook, now: now), now: now, into: &out)
        guard selection != fxSelected else { return false }
        for currency in Set(fxSelected.keys).union(selection.keys).sorted() {
            let before = fxSelected[currency]?.provider
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
        fxSelected = selection
        return true
    }

    /// The next instant a selected rate stops being fresh.
    func fxDeadline() -> Date? {
        guard let fxFailover else { return nil }
        // A loop, not `compactMap(...).min()`: the engine loop asks after every input (each stream quote).
        var earliest: Date?
        for (currency, rate) in fxSelected {
            guard let profile = fxFailover.chain.first(where: { $0.kind.rawValue == rate.provider && $0.serves(currency) }),
                  let next = profile.nextPublication(after: rate.at)
            else { continue }
            let due = next.addingTimeInterval(fxFailover.maxAge.seconds + 0.001)
            if earliest.map({ due < $0 }) ?? true { earliest = due }
        }
        return earliest
    }

    private mutating func evaluateFXAlerts(now: Date, into out: inout EngineOutput) {
        for alert in settings.fx.alerts where FXMoveAlerts.isSupported(alert) {
            let key = FXMoveAlerts.key(alert)
            var machine = fxAlerts[key] ?? LeveledAlertStateMachine()
            let before = machine.phase
            let rate = fxSelected[alert.quote]
            let action = machine.observe(FXMoveAlerts.observedValue(rate), now: now, policy: FXMoveAlerts.policy(alert))
            fxAlerts[key] = machine
            let event = FXMoveAlerts.event(id: makeID(), alert: alert, rate: rate, action: action, now: now)
            if machine.phase != before || event != nil {
                out.publication.states.append(StateRecord.encode(machine, key: key, kind: "fx"))
            }
            if let event { out.publication.events.append(event) }
        }
    }
}

extension AlertEngine {
    /// The `USD/<currency>` rates in use now, by currency (status, tests).
    package var fxRates: [String: FXRate] { fxSelected }
}
