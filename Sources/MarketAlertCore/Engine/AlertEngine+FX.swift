import Foundation

/// The router's FX glue: an FX round goes to `FXMachine`; a changed selection re-evaluates every premium rule
/// at once (all KRW legs on the new rate, never a mix).
extension AlertEngine {
    mutating func receiveFX(_ book: FXRateBook, failover: FXFailover, now: Date, into out: inout EngineOutput) {
        fx.receive(book, failover: failover)
        let firstRound = gate.answered(SettleGate.fx)
        if firstRound && gate.isSettled { out.log(.info, "every source has answered; evaluating") }
        let changed = refreshFXSelection(now: now, into: &out)
        if changed || firstRound { evaluatePremiums(involving: nil, now: now, into: &out) }
        fx.evaluateMoveAlerts(context: context(now), into: &out)
    }

    /// Re-selects the fresh rates at `now`; true when the selection changed.
    @discardableResult
    mutating func refreshFXSelection(now: Date, into out: inout EngineOutput) -> Bool {
        let changed = fx.refresh(context: context(now), dataProblems: dataProblems, into: &out)
        return refreshUSDTKRW(now: now, into: &out) || changed
    }

    /// The `USD/<currency>` rates in use now, by currency (status, tests).
    package var fxRates: [String: FXRate] { fx.selected }
}
