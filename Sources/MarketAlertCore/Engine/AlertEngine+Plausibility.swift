import Foundation

/// Plausibility guards: a premium above a rule's `max_plausible_pct` is a data problem of the outlying
/// exchange, reported as a `source/<exchange>/data` event (never a premium alert); an FX rate that jumps more
/// than `fx.max_move_pct` from the last accepted one is held until confirmed.
extension AlertEngine {
    /// Raises or resolves `source/<exchange>/data` after an evaluation, from the evaluator's implausible keys.
    mutating func checkPlausibility(now: Date, into out: inout EngineOutput) {
        var implicated: [ExchangeID: (key: String, text: String)] = [:]
        for (key, observation) in premium.implausible.sorted(by: { $0.key < $1.key }) {
            var outlier = Self.outlier(observation)
            // Converted with a rate that only its own provider vouches for (accepted after a held jump): the
            // provider is the suspect, not the exchange.
            if let rate = observation.rates.first(where: { fxUnconfirmed[$0.quote] == $0 }) {
                outlier.exchange = ExchangeID(rate.provider)
            }
            guard implicated[outlier.exchange] == nil else { continue }
            implicated[outlier.exchange] = (key, outlier.text)
        }
        for (exchange, cause) in implicated.sorted(by: { $0.key < $1.key }) where !dataProblems.contains(exchange) {
            dataProblems.insert(exchange)
            if fxJumpAlerts.values.contains(exchange.rawValue) { continue }  // already firing for the held jump
            let summary = "\(exchange) data problem: \(cause.text); \(cause.key) ignores it until it is plausible again"
            out.log(.warning, summary, subject: exchange.rawValue)
            out.publication.events.append(dataEvent(exchange, firing: true, summary: summary, error: cause.text, now: now))
        }
        for exchange in dataProblems.sorted() where implicated[exchange] == nil {
            dataProblems.remove(exchange)
            // Still held as an FX jump: that alert stays firing.
            if fxJumpAlerts.values.contains(exchange.rawValue) { continue }
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

    /// How long a provider must keep to a jump, on later publications, before its own word is enough.
    static let fxJumpHold: TimeInterval = 3600

    /// The FX guard: `selection` (fresh rates the failover chose) filtered so a rate that jumps more than
    /// `fx.max_move_pct` from the last accepted one is held: it is accepted at once when another provider's
    /// fresh rate agrees with it, and on its own provider's word only when that provider has kept to it on a
    /// later publication after holding it for `fxJumpHold` (a provider repeating a bad rate, USD/KRW = 1 a
    /// second later, is not a confirmation). While held, the last accepted rate serves while it is fresh, and
    /// `source/<provider>/data` fires naming the FX provider.
    mutating func guardFX(_ selection: [String: FXRate], now: Date, into out: inout EngineOutput) -> [String: FXRate] {
        let limit = settings.fx.maxMovePct / 100
        func close(_ a: FXRate, _ b: FXRate) -> Bool { abs(a.rate.value / b.rate.value - 1) <= limit }
        func confirmedElsewhere(_ candidate: FXRate, _ currency: String) -> Bool {
            fxBook.states.contains { kind, state in
                guard kind.rawValue != candidate.provider, let other = state.rates[currency] else { return false }
                let fresh = fxFailover?.chain.first { $0.kind == kind }?.isFresh(other, now: now, maxAge: settings.fx.maxAge) ?? false
                return fresh && close(candidate, other)
            }
        }
        var result: [String: FXRate] = [:]
        for (currency, candidate) in selection.sorted(by: { $0.key < $1.key }) {
            guard let accepted = fxAccepted[currency], !close(candidate, accepted), candidate != accepted else {
                if let unconfirmed = fxUnconfirmed[currency], candidate.provider != unconfirmed.provider || confirmedElsewhere(candidate, currency) {
                    fxUnconfirmed[currency] = nil
                }
                acceptFX(candidate, currency, now: now, into: &out)
                result[currency] = candidate
                continue
            }
            if confirmedElsewhere(candidate, currency) {
                out.log(.warning, "USD/\(currency) \(candidate.rate) from \(candidate.provider) confirmed by another provider after a jump from \(accepted.rate)")
                fxUnconfirmed[currency] = nil
                acceptFX(candidate, currency, now: now, into: &out)
                result[currency] = candidate
                continue
            }
            if let suspect = fxSuspect[currency], suspect.provider == candidate.provider, close(candidate, suspect),
               let since = fxSuspectSince[currency]
            {
                if candidate.at > suspect.at, now.timeIntervalSince(since) >= Self.fxJumpHold {
                    out.log(
                        .warning,
                        "USD/\(currency) \(candidate.rate) from \(candidate.provider) accepted on its own word after a jump from \(accepted.rate), held since \(Timestamp.rfc3339(since)); no other provider confirms it",
                        subject: candidate.provider)
                    fxUnconfirmed[currency] = candidate
                    acceptFX(candidate, currency, now: now, into: &out)
                    result[currency] = candidate
                    continue
                }
            } else {
                let move = NumberText.percent(abs(candidate.rate.value / accepted.rate.value - 1) * 100)
                let summary = "\(candidate.provider) data problem: USD/\(currency) \(candidate.rate) moved \(move)% from \(accepted.rate); "
                    + "held until another provider confirms it (or \(candidate.provider) keeps to it for an hour)"
                out.log(.warning, summary, subject: candidate.provider)
                fxSuspect[currency] = candidate
                fxSuspectSince[currency] = now
                if fxJumpAlerts[currency] != candidate.provider {
                    resolveFXJumpAlert(currency, now: now, into: &out)
                    fxJumpAlerts[currency] = candidate.provider
                    out.publication.events.append(dataEvent(
                        ExchangeID(candidate.provider), firing: true, summary: summary,
                        error: "USD/\(currency) \(candidate.rate) against \(accepted.rate) accepted before", now: now))
                }
            }
            // Meanwhile the last accepted rate serves while it is fresh; after that, none.
            let fresh = fxFailover?.chain.first { $0.kind.rawValue == accepted.provider }?.isFresh(accepted, now: now, maxAge: settings.fx.maxAge) ?? false
            if fresh { result[currency] = accepted }
        }
        return result
    }

    /// `candidate` becomes the accepted rate: a held jump is over (its data alert resolves).
    private mutating func acceptFX(_ candidate: FXRate, _ currency: String, now: Date, into out: inout EngineOutput) {
        fxAccepted[currency] = candidate
        fxSuspect[currency] = nil
        fxSuspectSince[currency] = nil
        resolveFXJumpAlert(currency, now: now, into: &out)
    }

    private mutating func resolveFXJumpAlert(_ currency: String, now: Date, into out: inout EngineOutput) {
        guard let provider = fxJumpAlerts.removeValue(forKey: currency) else { return }
        // The premium guard may have its own alert under the same key (a rate accepted on its own word).
        guard !dataProblems.contains(ExchangeID(provider)) else { return }
        out.publication.events.append(dataEvent(
            ExchangeID(provider), firing: false, summary: "\(provider) USD/\(currency) no longer held", error: nil, now: now))
    }
}
