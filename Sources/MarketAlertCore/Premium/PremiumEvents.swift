import Foundation

/// Builds the alert events of premium rules (key `premium/<rule>/<asset>`).
package enum PremiumEvents {
    package static func key(rule: String, asset: String) -> String { "premium/\(rule)/\(asset)" }

    /// The event for a state-machine action, or nil for `.none`.
    package static func event(
        id: String, rule: PremiumRule, reference: String, observation: PremiumObservation,
        action: LeveledAlertStateMachine.Action, now: Date
    ) -> AlertEvent? {
        let status: String
        let level: AlertLevel
        var verb: String
        switch action {
        case .none: return nil
        case .fire(let index), .escalate(let index), .repeatNotification(let index):
            guard rule.levels.indices.contains(index) else { return nil }
            status = AlertEvent.Status.firing
            level = rule.levels[index]
            verb = ">="
            if case .repeatNotification = action { verb = "still >=" }
        case .resolve:
            guard let lowest = rule.levels.first else { return nil }
            status = AlertEvent.Status.resolved
            level = AlertLevel(pct: lowest.pct, severity: .info)
            verb = "resolved, below clear level \(NumberText.threshold(rule.clearPct))%;"
        }
        let detail = PremiumDetail(
            rule: rule.name, asset: observation.asset, pct: NumberText.decimal(observation.pct, places: 6).doubleValue,
            thresholdPct: level.pct, basis: rule.basis, reference: reference,
            high: quoteDetail(observation.high), low: quoteDetail(observation.low),
            fx: observation.rates.map(FXDetail.init))
        let summary: String
        if status == AlertEvent.Status.resolved {
            summary = "\(observation.asset) premium (\(rule.name)) \(verb) now \(NumberText.percent(observation.pct))%: "
                + "\(side(observation.high, reference: reference)) over \(side(observation.low, reference: reference))"
        } else {
            summary = "\(observation.asset) premium (\(rule.name)) \(NumberText.percent(observation.pct))% \(verb) "
                + "\(NumberText.threshold(level.pct))%: \(side(observation.high, reference: reference)) over "
                + "\(side(observation.low, reference: reference))"
        }
        return AlertEvent(
            id: id, key: key(rule: rule.name, asset: observation.asset), kind: .premium, status: status,
            severity: level.severity, at: now, summary: summary, premium: detail)
    }

    private static func quoteDetail(_ priced: PricedQuote) -> QuoteDetail {
        QuoteDetail(
            exchange: priced.quote.exchange.rawValue, market: priced.quote.market, price: priced.price.exact,
            quote: priced.quote.quote, priceRef: NumberText.decimal(priced.priceRef, places: 8), side: priced.side,
            at: priced.quote.at)
    }

    /// `upbit 139,500,000.00 KRW (95,123.45 USD)`, or `binance 95,006.70 USDT` when no conversion was needed.
    private static func side(_ priced: PricedQuote, reference: String) -> String {
        let own = "\(priced.quote.exchange.rawValue) \(NumberText.price(priced.price.exact)) \(priced.quote.quote)"
        if priced.rates.isEmpty { return own }
        return "\(own) (\(NumberText.price(priced.priceRef)) \(reference))"
    }
}

extension Decimal {
    package var doubleValue: Double { NSDecimalNumber(decimal: self).doubleValue }
}
