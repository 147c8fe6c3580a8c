import Foundation

/// The FX move alert (`fx.alerts`, key `fx/USD-KRW`): fires when the selected rate's change against the
/// previous close reaches `change_pct` in either direction, and resolves when it falls back below
/// `clearFraction × change_pct` (the gap is the hysteresis). Driven by `LeveledAlertStateMachine`.
///
/// Only providers that state a change (Dunamu) give a value. While the selected rate has none (a fallback
/// provider at night or on weekends) or there is no fresh rate, the alert holds its state: it neither fires
/// nor resolves on missing data.
package enum FXMoveAlerts {
    /// Resolve below this fraction of the threshold.
    package static let clearFraction = 0.8
    package static let severity = Severity.notice

    package static func key(_ alert: FXAlertSettings) -> String { "fx/\(alert.base)-\(alert.quote)" }

    package static func policy(_ alert: FXAlertSettings) -> LeveledAlertPolicy {
        LeveledAlertPolicy(
            levels: [AlertLevel(pct: alert.changePct, severity: severity)], clearBelow: alert.changePct * clearFraction)
    }

    /// Rates are `USD/<currency>`, so only `USD/<currency>` pairs can be watched.
    package static func isSupported(_ alert: FXAlertSettings) -> Bool { alert.base == "USD" && alert.quote != "USD" }

    /// Warnings for configured alerts that can never be evaluated (the lead shows them at config check).
    package static func issues(_ alerts: [FXAlertSettings]) -> [ConfigIssue] {
        alerts.enumerated().compactMap { index, alert in
            guard !isSupported(alert) else { return nil }
            return ConfigIssue(
                path: "fx.alerts[\(index)].pair",
                message: "only USD/<currency> pairs can be watched (rates are quoted per USD); \(alert.pair) is ignored",
                severity: .warning)
        }
    }

    /// The value the state machine observes: |change vs previous close| in percent, or nil when unknown.
    package static func observedValue(_ rate: FXRate?) -> Double? {
        guard let change = rate?.changePct, change.isFinite else { return nil }
        return abs(change)
    }

    /// The event for a state-machine action (nil for `.none`, or when there is no rate to show).
    package static func event(
        id: String, alert: FXAlertSettings, rate: FXRate?, action: LeveledAlertStateMachine.Action, now: Date
    ) -> AlertEvent? {
        guard let rate else { return nil }
        let threshold = NumberText.pctText(alert.changePct)
        let change = rate.changePct ?? 0
        let status: String
        let severity: Severity
        let summary: String
        switch action {
        case .none:
            return nil
        case .fire, .escalate, .repeatNotification:
            status = AlertEvent.Status.firing
            severity = Self.severity
            let bound = change < 0 ? "<= -\(threshold)%" : ">= \(threshold)%"
            let still = if case .repeatNotification = action { "still " } else { "" }
            summary = "\(describe(rate)) \(still)\(bound)"
        case .resolve:
            status = AlertEvent.Status.resolved
            severity = .info
            let clear = NumberText.pctText(alert.changePct * clearFraction)
            summary = "\(describe(rate)), back within ±\(clear)% (resolved; fired at ±\(threshold)%)"
        }
        return AlertEvent(
            id: id, key: key(alert), kind: .fx, status: status, severity: severity, at: now, summary: summary,
            fx: FXDetail(rate))
    }

    /// `USD/KRW 1,395.5 moved +0.62% vs previous close (dunamu, 2026-03-10 11:00 KST)`: the rate exactly as
    /// published, grouped.
    package static func describe(_ rate: FXRate) -> String {
        let move = rate.changePct.map { "moved \(signedPercent($0)) vs previous close" } ?? "change vs previous close unknown"
        return "\(rate.pair) \(NumberText.exact(rate.rate.exact)) \(move) (\(rate.provider), \(quoteTime(rate)))"
    }

    /// `+0.62%`, `-1.05%`, `+0.1234%`: the same digits as `change_pct` in the JSON (at least 2 decimals).
    package static func signedPercent(_ value: Double) -> String {
        let text = NumberText.exact(NumberText.pct(value), minimumFractionDigits: 2)
        return value >= 0 && !text.hasPrefix("-") ? "+\(text)%" : "\(text)%"
    }

    /// The quote time in the provider's home zone where it has one (Dunamu: KST), else UTC.
    private static func quoteTime(_ rate: FXRate) -> String {
        let (zone, label) = rate.provider == FXProviderKind.dunamu.rawValue ? (FXQuoteTime.seoulZoneID, "KST") : ("UTC", "UTC")
        guard let text = FXQuoteTime.display(rate.at, zoneID: zone) else { return Timestamp.rfc3339(rate.at) }
        return "\(text) \(label)"
    }
}
