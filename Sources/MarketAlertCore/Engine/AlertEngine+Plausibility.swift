import Foundation

/// Plausibility guards: a premium above a rule's `max_plausible_pct` is a data problem of the outlying
/// exchange, reported as a `source/<exchange>/data` event (never a premium alert). (An FX rate that jumps is
/// `FXMachine`'s: `FXMachine+JumpGuard.swift`.)
extension AlertEngine {
    /// Raises or resolves `source/<exchange>/data` after an evaluation, from the evaluator's implausible keys.
    mutating func checkPlausibility(now: Date, into out: inout EngineOutput) {
        var implicated: [ExchangeID: (key: String, text: String)] = [:]
        for (key, observation) in premium.implausible.sorted(by: { $0.key < $1.key }) {
            var outlier = Self.outlier(observation)
            // Converted with a rate that only its own provider vouches for (accepted after a held jump): the
            // provider is the suspect, not the exchange.
            if let rate = observation.rates.first(where: { fx.unconfirmed[$0.quote] == $0 }) {
                outlier.exchange = ExchangeID(rate.provider)
            }
            guard implicated[outlier.exchange] == nil else { continue }
            implicated[outlier.exchange] = (key, outlier.text)
        }
        for (exchange, cause) in implicated.sorted(by: { $0.key < $1.key }) where !dataProblems.contains(exchange) {
            dataProblems.insert(exchange)
            if fx.jumpAlerts.values.contains(exchange.rawValue) { continue }  // already firing for the held jump
            let summary = "\(exchange) data problem: \(cause.text); \(cause.key) ignores it until it is plausible again"
            out.log(.warning, summary, subject: exchange.rawValue)
            out.publication.events.append(dataEvent(exchange, firing: true, summary: summary, error: cause.text, now: now))
        }
        for exchange in dataProblems.sorted() where implicated[exchange] == nil {
            dataProblems.remove(exchange)
            // Still held as an FX jump: that alert stays firing.
            if fx.jumpAlerts.values.contains(exchange.rawValue) { continue }
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
        DataProblemEvents.event(
            id: makeID(), exchange, firing: firing, summary: summary, error: error, severity: settings.sourceAlerts.severity, now: now)
    }
}
