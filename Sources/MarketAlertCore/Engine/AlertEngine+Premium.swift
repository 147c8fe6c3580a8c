import Foundation

extension AlertEngine {
    /// Quotes arrived: the exchange has answered; the rules it feeds re-evaluate at once.
    mutating func receiveQuotes(_ exchange: ExchangeID, _ quotes: [Quote], delivery: QuoteDelivery, now: Date, into out: inout EngineOutput) {
        // Removed by a reload while in flight (`index(forKey:)`: no copy of the exchange's settings per input).
        guard settings.exchanges.index(forKey: exchange) != nil else { return }
        switch delivery {
        case .snapshot: book.replace(exchange, with: quotes)
        case .update: book.update(exchange, with: quotes)
        }
        recordSource(exchange.rawValue, error: nil, now: now, into: &out)
        let settled = gate.answered(exchange.rawValue)
        if settled && gate.isSettled { out.log(.info, "every source has answered; evaluating") }
        // A stream batch re-evaluates only the assets it carries; a snapshot (or the first answer) all of them.
        if delivery == .update && !settled {
            evaluatePremiums(involving: exchange, assets: AssetFilter(quotes), now: now, into: &out)
        } else {
            evaluatePremiums(involving: exchange, now: now, into: &out)
        }
    }

    /// Evaluates the settled rules (those involving `exchange`, when given) and collects their transitions.
    mutating func evaluatePremiums(involving exchange: ExchangeID?, assets: AssetFilter = .all, now: Date, into out: inout EngineOutput) {
        guard !settings.premium.rules.isEmpty else { return }
        if converter.usdRates != fxSelected || converter.reference != settings.premium.reference
            || converter.stablecoinsAs != settings.premium.stablecoinsAs
        {
            converter = CurrencyConverter(
                reference: settings.premium.reference, stablecoinsAs: settings.premium.stablecoinsAs, usdRates: fxSelected)
        }
        let converter = converter
        let gate = gate
        let premiumSettings = settings.premium
        // Once settled, every rule may evaluate: no per-rule question (nor its FX lookup) per stream quote.
        let decisions = premium.evaluate(
            settings: premiumSettings, book: book, converter: converter, now: now, onlyInvolving: exchange, assets: assets
        ) { rule in gate.isSettled || gate.isSettled(rule, needsFX: premiumSettings.needsFX(rule)) }
        for decision in decisions {
            if decision.stateChanged || decision.action != .none {
                out.publication.states.append(StateRecord.encode(decision.state, key: decision.key, kind: "premium"))
            }
            guard let observation = decision.observation,
                  let event = PremiumEvents.event(
                    id: makeID(), rule: decision.rule, reference: settings.premium.reference,
                    observation: observation, action: decision.action, now: now)
            else { continue }
            out.publication.events.append(withHistory(event, key: decision.key, now: now))
        }
        if !premium.implausible.isEmpty || !dataProblems.isEmpty { checkPlausibility(now: now, into: &out) }
    }

    /// `for` and repeat deadlines, and for pending keys the moment one of their quotes goes stale (a pending
    /// condition not seen to hold starts over). Cached by the evaluator between changes.
    func premiumDeadline() -> Date? {
        premium.deadline(settings: settings.premium)
    }
}

extension PremiumSettings {
    /// Whether a rule's prices go through an FX rate (a quote currency other than the reference's fiat).
    package func needsFX(_ rule: PremiumRule) -> Bool {
        rule.quotes.contains { conversionNeedsFX($0) }
    }
}
