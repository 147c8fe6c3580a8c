import Foundation

/// The tether premium (`fx.alerts` with `pair: USDT/KRW` and `premium_pct`, key `fx/USDT-KRW`): fires when
/// |USDT/KRW ÷ USD/KRW − 1| reaches `premium_pct`, resolves below 80% of it (`FXMoveAlerts.clearFraction`),
/// with the usual lifecycle. Without either rate the alert holds its state: missing data neither fires nor
/// resolves it.
enum TetherPremium {
    static let key = "fx/USDT-KRW"
    static let severity = Severity.notice

    static func policy(_ alert: TetherPremiumAlertSettings) -> LeveledAlertPolicy {
        LeveledAlertPolicy(
            levels: [AlertLevel(pct: alert.premiumPct, severity: severity)],
            clearBelow: alert.premiumPct * FXMoveAlerts.clearFraction)
    }

    /// (USDT/KRW ÷ USD/KRW − 1) × 100, signed; nil without both rates.
    static func pct(usdtKrw: FXRate?, usdKrw: FXRate?) -> Double? {
        guard let usdtKrw, let usdKrw else { return nil }
        let pct = (usdtKrw.rate.value / usdKrw.rate.value - 1) * 100
        return pct.isFinite ? pct : nil
    }

    static func event(
        id: String, alert: TetherPremiumAlertSettings, rate: FXRate, usdKrw: FXRate, pct: Double,
        action: LeveledAlertStateMachine.Action, now: Date
    ) -> AlertEvent? {
        let threshold = NumberText.pctText(alert.premiumPct)
        let rounded = NumberText.double(NumberText.pct(pct))
        let describe = "USDT/KRW \(NumberText.exact(rate.rate.exact)) (\(rate.provider)) against USD/KRW "
            + "\(NumberText.exact(usdKrw.rate.exact)) (\(usdKrw.provider)): tether premium \(FXMoveAlerts.signedPercent(pct))"
        let status: String
        let severity: Severity
        let summary: String
        switch action {
        case .none:
            return nil
        case .fire, .escalate, .repeatNotification:
            status = AlertEvent.Status.firing
            severity = Self.severity
            let still = if case .repeatNotification = action { "still " } else { "" }
            summary = "\(describe) \(still)beyond ±\(threshold)%"
        case .resolve:
            status = AlertEvent.Status.resolved
            severity = .info
            summary = "\(describe), back within ±\(NumberText.pctText(alert.premiumPct * FXMoveAlerts.clearFraction))% (resolved; fired at ±\(threshold)%)"
        }
        var detail = FXDetail(pair: TetherPremiumAlertSettings.pair, rate: rate.rate.exact, provider: rate.provider, at: rate.at)
        detail.premiumPct = rounded
        return AlertEvent(id: id, key: key, kind: .fx, status: status, severity: severity, at: now, summary: summary, fx: detail)
    }
}

extension USDTKRWMachine {
    /// Steps the tether premium alert at `now` against the selected USDT/KRW and the official USD/KRW.
    mutating func evaluatePremiumAlert(context: MachineContext, usdKrw: FXRate?, into out: inout EngineOutput) {
        let pct = TetherPremium.pct(usdtKrw: selected, usdKrw: usdKrw)
        setPremium(pct)
        guard let alert = context.settings.fx.tetherAlerts.first else { return }
        var machine = premiumAlert ?? LeveledAlertStateMachine()
        let before = machine
        let action = machine.observe(pct.map(abs), now: context.now, policy: TetherPremium.policy(alert))
        premiumAlert = machine
        if machine != before || action != .none {
            out.publication.states.append(StateRecord.encode(machine, key: TetherPremium.key, kind: "fx"))
        }
        guard let selected, let usdKrw, let pct,
              let event = TetherPremium.event(
                id: context.makeID(), alert: alert, rate: selected, usdKrw: usdKrw, pct: pct, action: action, now: context.now)
        else { return }
        out.publication.events.append(event)
    }

    /// The tether alert's next `for`/repeat deadline.
    func premiumDeadline(_ settings: FXSettings) -> Date? {
        guard let alert = settings.tetherAlerts.first else { return nil }
        return premiumAlert?.nextDeadline(policy: TetherPremium.policy(alert))
    }
}

extension USDTKRWMachine {
    /// A fresh notification of the tether premium while it fires (a silence's end), at its current value.
    func currentFiringEvent(context: MachineContext, usdKrw: FXRate?) -> AlertEvent? {
        guard case .firing(let level, _, _)? = premiumAlert?.phase, let alert = context.settings.fx.tetherAlerts.first,
              let selected, let usdKrw, let pct = TetherPremium.pct(usdtKrw: selected, usdKrw: usdKrw)
        else { return nil }
        return TetherPremium.event(
            id: context.makeID(), alert: alert, rate: selected, usdKrw: usdKrw, pct: pct, action: .repeatNotification(level: level),
            now: context.now)
    }
}
