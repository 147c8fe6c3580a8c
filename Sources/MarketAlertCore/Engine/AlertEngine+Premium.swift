import Foundation

extension AlertEngine {
    /// Quotes arrived: the exchange has answered; the rules it feeds re-evaluate at once.
    mutating func receiveQuotes(_ exchange: ExchangeID, _ quotes: [Quote], delivery: QuoteDelivery, now: Date, into out: inout EngineOutput) {
        // Removed by a reload while in flight (`index(forKey:)`: no copy of the exchange's settings per input).
        guard settings.exchanges.index(forKey: exchange) != nil else { return }
        // One scan of two comparisons per quote; the batch is copied only when a time must be replaced.
        var quotes = quotes
        if quotes.contains(where: { $0.hasImplausibleTime }) { replaceImplausibleTimes(exchange, &quotes, now: now, into: &out) }
        switch delivery {
        case .snapshot: book.replace(exchange, with: quotes)
        case .update: book.update(exchange, with: quotes)
        }
        recordSource(exchange.rawValue, error: nil, now: now, into: &out)
        let settled = gate.answered(exchange.rawValue)
        if settled && gate.isSettled { out.log(.info, "every source has answered; evaluating") }
        // A new USDT/KRW rate re-evaluates every rule (no KRW leg on the old rate beside one on the new). A
        // USDT/KRW exchange's first answer may end the selection's wait even without a KRW-USDT quote.
        let usdtChanged = (carriesUSDTKRW(exchange, quotes) || (settled && isUSDTKRWSource(exchange))) && refreshUSDTKRW(now: now, into: &out)
        // A stream batch re-evaluates only the assets it carries; a snapshot (or the first answer) all of them.
        if usdtChanged {
            evaluatePremiums(involving: nil, now: now, into: &out)
        } else if delivery == .update && !settled {
            evaluatePremiums(involving: exchange, assets: AssetFilter(quotes), now: now, into: &out)
        } else {
            evaluatePremiums(involving: exchange, now: now, into: &out)
        }
    }

    /// The clock guard (`QuoteClock`): a quote whose own time is in the future or before 2010 takes its
    /// receive time, so it is neither fresh forever nor published with an impossible time; counted per
    /// exchange, logged at most every 10 minutes per exchange.
    private mutating func replaceImplausibleTimes(_ exchange: ExchangeID, _ quotes: inout [Quote], now: Date, into out: inout EngineOutput) {
        var sample: (market: String, time: Date, receivedAt: Date)?
        var replaced = 0
        for index in quotes.indices where quotes[index].hasImplausibleTime {
            if sample == nil, let time = quotes[index].exchangeTime {
                sample = (quotes[index].market, time, quotes[index].receivedAt)
            }
            quotes[index].exchangeTime = nil
            replaced += 1
        }
        quoteClockRejections[exchange, default: 0] += replaced
        guard let sample, quoteClockLogged[exchange].map({ now.timeIntervalSince($0) >= 600 }) ?? true else { return }
        quoteClockLogged[exchange] = now
        let millis = sample.time.timeIntervalSince1970 * 1000
        let said = abs(millis) < 9e18 ? "\(Int64(millis)) ms since 1970" : "out of any range"
        out.log(
            .warning,
            "\(exchange) sent a quote time that cannot be right (\(sample.market): \(said), received \(Timestamp.rfc3339(sample.receivedAt))); "
                + "its receive time is used instead (\(quoteClockRejections[exchange] ?? replaced) so far)",
            subject: exchange.rawValue)
    }

    /// Evaluates the settled rules (those involving `exchange`, when given) and collects their transitions.
    mutating func evaluatePremiums(involving exchange: ExchangeID?, assets: AssetFilter = .all, now: Date, into out: inout EngineOutput) {
        guard !settings.premium.rules.isEmpty else { return }
        if converter.usdRates != fx.selected || converter.reference != settings.premium.reference
            || converter.stablecoinsAs != settings.premium.stablecoinsAs
        {
            converter = CurrencyConverter(
                reference: settings.premium.reference, stablecoinsAs: settings.premium.stablecoinsAs, usdRates: fx.selected)
        }
        let converter = converter
        let usdt = usdtBasis()
        let gate = gate
        let premiumSettings = settings.premium
        // A rule reporting both KRW bases waits for USDT/KRW's exchanges too (its first notification carries both).
        let usdtSources = gate.isSettled ? [] : settings.fx.usdtKrw?.exchanges ?? []
        // Once settled, every rule may evaluate: no per-rule question (nor its FX lookup) per stream quote.
        let decisions = premium.evaluate(
            settings: premiumSettings, book: book, converter: converter, now: now, onlyInvolving: exchange, assets: assets,
            usdt: usdt
        ) { rule in gate.isSettled || gate.isSettled(rule, needsFX: premiumSettings.needsFX(rule), usdtSources: usdtSources) }
        for decision in decisions {
            if decision.stateChanged || decision.action != .none {
                out.publication.states.append(StateRecord.encode(decision.state, key: decision.key, kind: "premium"))
            }
            guard let observation = decision.observation,
                  var event = PremiumEvents.event(
                    id: makeID(), rule: decision.rule, reference: settings.premium.reference,
                    observation: observation, action: decision.action, now: now, bases: decision.bases)
            else { continue }
            if let transfer = transferDetail(rule: decision.rule, observation: observation) {
                event.annotate(transfer, low: observation.low.quote.exchange, high: observation.high.quote.exchange)
            }
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
