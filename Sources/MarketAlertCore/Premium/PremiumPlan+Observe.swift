import Foundation

/// A currency's factor into the reference currency and the FX rates behind it (nil: no fresh rate).
typealias ReferenceConversion = (value: Double, rates: [FXRate])

/// One bid/ask candidate: a fresh, convertible quote of one exchange.
struct BidAskCandidate: Sendable {
    var quote: Quote
    var factor: Double
    var rates: [FXRate]
}

extension PremiumPlan {
    /// `PremiumCalculator.observe` over the plan's slots: the same math and the same choices (the first listed
    /// quote currency an exchange trades the asset in; stale or unconvertible quotes dropped), without a
    /// string lookup. `conversions` is indexed like `currencies`; `scratch` is reused by `bidask` rules.
    func observe(
        entry: Int, rule ruleIndex: Int, book: QuoteBook, conversions: [ReferenceConversion?], oldest: Date,
        scratch: inout [BidAskCandidate]
    ) -> PremiumObservation? {
        let basis = rules[ruleIndex].rule.basis
        let exchangeCount = rules[ruleIndex].rule.exchanges.count
        let quoteCount = rules[ruleIndex].currencies.count
        let marketBase = entries[entry].marketBase
        let collects = basis == .bidask || basis == .depth
        if collects {
            scratch.removeAll(keepingCapacity: true)
        }
        // The dearest, the cheapest and the second priced side, by slot: quotes are copied only for the two kept.
        typealias Side = (slot: Int, ref: Double, currency: Int)
        let oldest = oldest.timeIntervalSinceReferenceDate
        var high: Side?
        var low: Side?
        var second: Side?
        var count = 0
        for exchange in 0..<exchangeCount {
            // The first quote currency the exchange has a quote in (fresh or not: a stale one is not replaced
            // by the next currency).
            var slot = -1
            var summary = QuoteSummary()
            var position = 0
            while position < quoteCount {
                let candidate = slots[marketBase + exchange * quoteCount + position]
                if candidate >= 0 {
                    summary = book.summary(inSlot: candidate)
                    if summary.present {
                        slot = candidate
                        break
                    }
                }
                position += 1
            }
            guard slot >= 0, summary.at >= oldest else { continue }
            let currency = rules[ruleIndex].currencies[position]
            guard let conversion = conversions[currency] else { continue }
            let value: Double
            switch basis {
            case .bidask, .depth:
                if let quote = book.quote(inSlot: slot) {
                    scratch.append(BidAskCandidate(quote: quote, factor: conversion.value, rates: conversion.rates))
                }
                continue
            case .last:
                guard let last = summary.last else { continue }
                value = last
            case .mid:
                guard let mid = summary.mid else { continue }
                value = mid
            }
            let priceRef = value * conversion.value
            guard priceRef.isFinite, priceRef > 0 else { continue }
            let side: Side = (slot, priceRef, currency)
            count += 1
            if count == 2 { second = side }
            if high.map({ priceRef > $0.ref }) ?? true { high = side }
            if low.map({ priceRef < $0.ref }) ?? true { low = side }
        }
        let asset = entries[entry].asset
        if basis == .bidask { return PremiumCalculator.bestBidAsk(asset: asset, candidates: scratch) }
        if basis == .depth { return DepthPremium.best(rule: rules[ruleIndex].rule, asset: asset, candidates: scratch) }
        guard count >= 2, let dear = high, var cheap = low,
              let dearQuote = book.quote(inSlot: dear.slot), var cheapQuote = book.quote(inSlot: cheap.slot)
        else { return nil }
        if dearQuote.exchange == cheapQuote.exchange, let second, let secondQuote = book.quote(inSlot: second.slot) {
            // Every price is equal: the premium is 0 between the first two exchanges.
            cheap = second
            cheapQuote = secondQuote
        }
        let pct = (dear.ref - cheap.ref) / cheap.ref * 100
        guard pct.isFinite, let dearPrice = Self.price(dearQuote, basis), let cheapPrice = Self.price(cheapQuote, basis) else { return nil }
        let sideName = basis == .last ? "last" : "mid"
        return PremiumObservation(
            asset: asset, pct: pct,
            high: PricedQuote(
                quote: dearQuote, side: sideName, price: dearPrice, priceRef: dear.ref, rates: conversions[dear.currency]?.rates ?? []),
            low: PricedQuote(
                quote: cheapQuote, side: sideName, price: cheapPrice, priceRef: cheap.ref, rates: conversions[cheap.currency]?.rates ?? []))
    }

    private static func price(_ quote: Quote, _ basis: PremiumBasis) -> Price? { basis == .last ? quote.last : quote.mid }
}
