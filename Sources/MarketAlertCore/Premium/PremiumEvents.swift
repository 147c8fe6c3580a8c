import Foundation

/// Builds the alert events of premium rules (key `premium/<rule>/<asset>`).
package enum PremiumEvents {
    package static func key(rule: String, asset: String) -> String { "premium/\(rule)/\(asset)" }

    /// The event for a state-machine action, or nil for `.none`.
    package static func event(
        id: String, rule: PremiumRule, reference: String, observation: PremiumObservation,
        action: LeveledAlertStateMachine.Action, now: Date, bases: PremiumBases? = nil
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
            verb = "resolved, below clear level \(NumberText.pctText(rule.clearPct))%;"
        }
        var detail = PremiumDetail(
            rule: rule.name, asset: observation.asset, pct: NumberText.double(NumberText.pct(observation.pct)),
            thresholdPct: NumberText.double(NumberText.pct(level.pct)), basis: rule.basis, reference: reference,
            high: quoteDetail(observation.high, reference: reference), low: quoteDetail(observation.low, reference: reference),
            fx: observation.rates.map(FXDetail.init))
        var summary: String
        if let trade = observation.executable {
            detail.executable = ExecutableDetail(trade, reference: reference)
            let words = tradeText(trade, rule: rule, reference: reference, buyCurrency: observation.low.quote.quote)
            summary = status == AlertEvent.Status.resolved
                ? "\(observation.asset) executable premium (\(rule.name)) \(verb) now \(words)"
                : "\(observation.asset) executable premium (\(rule.name)) \(verb) \(NumberText.pctText(level.pct))%: \(words)"
        } else if status == AlertEvent.Status.resolved {
            summary = "\(observation.asset) premium (\(rule.name)) \(verb) now \(NumberText.pctText(observation.pct))%: "
                + "\(side(observation.high, reference: reference)) over \(side(observation.low, reference: reference))"
        } else {
            summary = "\(observation.asset) premium (\(rule.name)) \(NumberText.pctText(observation.pct))% \(verb) "
                + "\(NumberText.pctText(level.pct))%: \(side(observation.high, reference: reference)) over "
                + "\(side(observation.low, reference: reference))"
        }
        if let bases {
            detail.bases = BasesDetail(bases)
            // The text names both bases once USDT/KRW is known (a v2 configuration's text is unchanged).
            if bases.usdtKrw != nil, let text = detail.bases?.text { summary += " [\(text)]" }
        }
        return AlertEvent(
            id: id, key: key(rule: rule.name, asset: observation.asset), kind: .premium, status: status,
            severity: level.severity, at: now, summary: summary, premium: detail)
    }

    /// `buy 10,000 USD on binance (3 levels, VWAP 60,012.4 USDT) → sell on upbit (2 levels): +0.84% net of fees
    /// (0.1% + 0.05%); still ≥ 0.3% up to 42,000 USD`.
    static func tradeText(_ trade: ExecutablePremium, rule: PremiumRule, reference: String, buyCurrency: String) -> String {
        let notional = NumberText.money(CurrencyDigits.priceRef(trade.notional, currency: reference), currency: reference)
        let vwap = NumberText.money(ExecutableDetail.significant(trade.buy.vwap), currency: buyCurrency) + " " + buyCurrency
        let pct = rule.netOfFees ? trade.netPct : trade.grossPct
        let sign = pct >= 0 ? "+" : ""
        var text = "buy \(notional) \(reference) on \(trade.buy.exchange) (\(trade.buy.levels) level\(trade.buy.levels == 1 ? "" : "s"), "
            + "VWAP \(vwap)) → sell on \(trade.sell.exchange) (\(trade.sell.levels) level\(trade.sell.levels == 1 ? "" : "s")): "
            + "\(sign)\(NumberText.pctText(pct))%"
        text += rule.netOfFees
            ? " net of fees (\(NumberText.pctText(trade.buy.feePct))% + \(NumberText.pctText(trade.sell.feePct))%)"
            : " before fees"
        if let most = trade.maxNotional, let threshold = rule.levels.first?.pct {
            let limit = NumberText.money(ExecutableDetail.significant(most, digits: 2), currency: reference)
            text += "; still ≥ \(NumberText.pctText(threshold))% up to \(limit) \(reference)"
        }
        return text
    }

    private static func quoteDetail(_ priced: PricedQuote, reference: String) -> QuoteDetail {
        QuoteDetail(
            exchange: priced.quote.exchange.rawValue, market: priced.quote.market, price: priced.price.exact,
            quote: priced.quote.quote, priceRef: CurrencyDigits.priceRef(priced.priceRef, currency: reference), side: priced.side,
            at: priced.quote.at, transport: priced.quote.transport.rawValue)
    }

    /// `upbit 139,500,000 KRW (95,123.45 USD)`, or `binance 95,006.70 USDT` when no conversion was needed: the
    /// price exactly as published and `price_ref` as in the JSON, both grouped.
    private static func side(_ priced: PricedQuote, reference: String) -> String {
        let own = "\(priced.quote.exchange.rawValue) \(NumberText.money(priced.price.exact, currency: priced.quote.quote)) \(priced.quote.quote)"
        if priced.rates.isEmpty { return own }
        let converted = CurrencyDigits.priceRef(priced.priceRef, currency: reference)
        return "\(own) (\(NumberText.money(converted, currency: reference)) \(reference))"
    }
}

extension Decimal {
    /// The nearest `Double`, through the decimal text (see ``NumberText/double(_:)``).
    package var doubleValue: Double { NumberText.double(self) }
}
