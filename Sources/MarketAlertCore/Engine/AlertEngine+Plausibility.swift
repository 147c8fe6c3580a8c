import Foundation

/// Plausibility guards: a premium above a rule's `max_plausible_pct` is a data problem of the outlying
/// exchange, reported as a `source/<exchange>/data` event (never a premium alert); an FX rate that jumps more
/// than `fx.max_move_pct` from the last accepted one is held until confirmed.
extension AlertEngine {
    /// Raises or resolves `source/<exchange>/data` after an evaluation, from the evaluator's implausible keys.
    mutating func checkPlausibility(now: Date, into out: inout EngineOutput) {
        var implicated: [ExchangeID: (key: String, text: String)] = [:]
        for (key, observation) in premium.implausible.sorted(by: { $0.key < $1.key }) {
            let outlier = Self.outlier(observation)
            guard implicated[outlier.exchange] == nil else { continue }
            implicated[outlier.exchange] = (key, outlier.text)
        }
        for (exchange, cause) in implicated.sorted(by: { $0.key < $1.key }) where !dataProblems.contains(exchange) {
            dataProblems.insert(exchange)
            let summary = "\(exchange) data problem: \(cause.text); \(cause.key) ignores it until it is plausible again"
            out.log(.warning, summary, subject: exchange.rawValue)
            out.publication.events.append(dataEvent(exchange, firing: true, summary: summary, error: cause.text, now: now))
        }
        for exchange in dataProblems.sorted() where implicated[exchange] == nil {
            dataProblems.remove(exchange)
            let summary = "\(exchange) prices plausible again"
            out.log(.info, summary, subject: exchange.rawValue)
            out.publication.events.append(dataEvent(exchange, firing: false, summary: summary, error: nil, now: now))
        }
    }

    /// The side of an implausible premium that is off: the one farther (in ratio) from the other side is
    /// unknowable with two prices, so the dear side is named, with both prices in the text.
    static func outlier(_ observation: PremiumObservation) -> (exchange: ExchangeID, text: String) {
        let high = observation.high
        let low = observation.low
        let text = "\(observation.asset) at \(NumberText.price(high.priceRef)) on \(high.quote.exchange) against "
            + "\(NumberText.price(low.priceRef)) on \(low.quote.exchange) (in the reference currency) is a "
            + "\(NumberText.percent(observation.pct))% premium, beyond what a market can have"
        let conversions = observation.rates.map { "\($0.pair) \(NumberText.price($0.rate.exact)) from \($0.provider)" }
        return (high.quote.exchange, conversions.isEmpty ? text : text + " (converted at " + conversions.joined(separator: ", ") + ")")
    }

    private func dataEvent(_ exchange: ExchangeID, firing: Bool, summary: String, error: String?, now: Date) -> AlertEvent {
        AlertEvent(
            id: makeID(), key: "source/\(exchange.rawValue)/data", kind: .source,
            status: firing ? AlertEvent.Status.firing : AlertEvent.Status.resolved,
            severity: firing ? settings.sourceAlerts.severity : .info, at: now, summary: summary,
            source: SourceDetail(name: exchange.rawValue, error: error, lastSuccess: nil, consecutiveFailures: nil))
    }

    /// The FX guard: `selection` (fresh rates the failover chose) filtered so a rate that jumps more than
    /// `fx.max_move_pct` from the last accepted one is held, until the same provider confirms it on a later
    /// poll or another provider's fresh rate agrees with it.
    mutating func guardFX(_ selection: [String: FXRate], now: Date, into out: inout EngineOutput) -> [String: FXRate] {
        let limit = settings.fx.maxMovePct / 100
        func close(_ a: FXRate, _ b: FXRate) -> Bool { abs(a.rate.value / b.rate.value - 1) <= limit }
        var result: [String: FXRate] = [:]
        for (currency, candidate) in selection {
            guard let accepted = fxAccepted[currency], !close(candidate, accepted), candidate != accepted else {
                fxAccepted[currency] = candidate
                fxSuspect[currency] = nil
                result[currency] = candidate
                continue
            }
            let confirmedLater = fxSuspect[currency].map { close(candidate, $0) && candidate.at > $0.at } ?? false
            let confirmedElsewhere = fxBook.states.contains { kind, state in
                guard kind.rawValue != candidate.provider, let other = state.rates[currency] else { return false }
                let fresh = fxFailover?.chain.first { $0.kind == kind }?.isFresh(other, now: now, maxAge: settings.fx.maxAge) ?? false
                return fresh && close(candidate, other)
            }
            if confirmedLater || confirmedElsewhere {
                out.log(.warning, "USD/\(currency) \(candidate.rate) from \(candidate.provider) confirmed after a jump from \(accepted.rate)")
                fxAccepted[currency] = candidate
                fxSuspect[currency] = nil
                result[currency] = candidate
                continue
            }
            if fxSuspect[currency] != candidate {
                let move = NumberText.percent(abs(candidate.rate.value / accepted.rate.value - 1) * 100)
                out.log(
                    .warning,
                    "USD/\(currency) \(candidate.rate) from \(candidate.provider) moved \(move)% from \(accepted.rate): held until another provider or the next poll confirms it",
                    subject: candidate.provider)
                fxSuspect[currency] = candidate
            }
            // Meanwhile the last accepted rate serves while it is fresh; after that, none.
            let fresh = fxFailover?.chain.first { $0.kind.rawValue == accepted.provider }?.isFresh(accepted, now: now, maxAge: settings.fx.maxAge) ?? false
            if fresh { result[currency] = accepted }
        }
        return result
    }
}
