import Foundation

/// The rates behind the two KRW bases, as the evaluator last converted with them.
struct BasesRates: Sendable, Equatable {
    var usdKrw: FXRate?
    var usdtKrw: FXRate?
}

/// v3 `premium.bases`: a rule that compares KRW markets with USD-quoted ones is observed on the basis it
/// alerts on (`krw_via`); each notification also carries its premium on the other basis, computed only when
/// the key notifies (never per quote).
package struct PremiumBases: Sendable, Equatable {
    package var krwVia: KRWVia
    package var usdFxPct: Double?
    package var usdtPct: Double?
    package var usdKrw: FXRate?
    package var usdtKrw: FXRate?
}

extension PremiumEvaluator {
    /// The `krw_via: usdt` conversions, recomputed when the USDT basis changes. Without a USDT basis KRW has
    /// no conversion on it (every other currency converts as on the official one).
    mutating func prepareUSDT(_ usdt: USDTConversionBasis?) {
        if let usdt {
            guard usdtConversionsFrom !== usdt.identity else { return }
            for (index, currency) in plan.currencies.enumerated() { usdtConversions[index] = usdt.toReference(1, currency: currency) }
            usdtConversionsFrom = usdt.identity
            basesRates.usdtKrw = usdt.usdtKrw
        } else {
            guard usdtConversionsFrom !== conversionsFrom else { return }
            for (index, currency) in plan.currencies.enumerated() { usdtConversions[index] = currency == "KRW" ? nil : conversions[index] }
            usdtConversionsFrom = conversionsFrom
            basesRates.usdtKrw = nil
        }
    }

    /// The official basis's USD/KRW rate (nil: KRW does not convert on it).
    static func usdKrw(_ converter: some ConversionBasis) -> FXRate? {
        converter.toReference(1, currency: "KRW")?.rates.first { $0.base == "USD" && $0.quote == "KRW" }
    }

    /// Both bases of a notifying key: `observed` is the pct on the rule's own basis; the other is observed now.
    mutating func bases(entry: Int, rule ruleIndex: Int, observed: Double?, book: QuoteBook, oldest: Date) -> PremiumBases? {
        let rule = plan.rules[ruleIndex].rule
        guard rule.comparesKRWWithUSD else { return nil }
        let viaUSDT = rule.krwVia == .usdt
        let other = plan.observe(
            entry: entry, rule: ruleIndex, book: book, conversions: viaUSDT ? conversions : usdtConversions, oldest: oldest,
            scratch: &scratch)
        let otherPct = other.map(\.pct).flatMap { $0 > rule.maxPlausiblePct ? nil : $0 }
        return PremiumBases(
            krwVia: rule.krwVia, usdFxPct: viaUSDT ? otherPct : observed, usdtPct: viaUSDT ? observed : otherPct,
            usdKrw: basesRates.usdKrw, usdtKrw: basesRates.usdtKrw)
    }
}

extension PremiumEvaluator {
    /// Both bases of `key` as the book stands at `now` (status page and API; nil for rules that do not compare
    /// KRW with USD-quoted markets, or before the key was evaluated).
    package func currentBases(forKey key: String, book: QuoteBook, now: Date, maxQuoteAge: Duration) -> PremiumBases? {
        guard let slot = plan.index[key], let entry = plan.entries.firstIndex(where: { $0.key == slot }) else { return nil }
        let ruleIndex = plan.entries[entry].rule
        let rule = plan.rules[ruleIndex].rule
        guard rule.comparesKRWWithUSD, conversions.count == plan.currencies.count, usdtConversions.count == plan.currencies.count
        else { return nil }
        let oldest = now.addingTimeInterval(-maxQuoteAge.seconds)
        var scratch: [BidAskCandidate] = []
        func pct(_ conversions: [ReferenceConversion?]) -> Double? {
            plan.observe(entry: entry, rule: ruleIndex, book: book, conversions: conversions, oldest: oldest, scratch: &scratch)
                .map(\.pct).flatMap { $0 > rule.maxPlausiblePct ? nil : $0 }
        }
        return PremiumBases(
            krwVia: rule.krwVia, usdFxPct: pct(conversions), usdtPct: pct(usdtConversions), usdKrw: basesRates.usdKrw,
            usdtKrw: basesRates.usdtKrw)
    }
}
