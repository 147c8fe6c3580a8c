import Foundation

/// A currency's factor into the reference currency and the FX rates behind it (nil: no fresh rate).
typealias ReferenceConversion = (value: Double, rates: [FXRate])

/// One bid/ask candidate: a fresh, convertible quote of one exchange.
struct BidAskCandidate: Sendable {
    var quote: Quote
    var factor: Double
    var rates: [FXRate]
    /// `TransferBlocks` flags of the candidate's exchange for the asset (`transfers: require`; 0: none).
    var transfer: UInt8 = 0
}

extension PremiumPlan {
    /// `PremiumCalculator.observe` over the plan's slots: the same math and the same choices (the first listed
    /// quote currency an exchange trades the asset in; stale or unconvertible quotes dropped), without a
    /// string lookup. `conversions` is indexed like `currencies`; `scratch` is reused by `bidask` rules.
    /// `transfer`: `transferFlags(_:)` (empty: no pair is left out for transfers).
    func observe(
        entry: Int, rule ruleIndex: Int, book: QuoteBook, conversions: [ReferenceConversion?], oldest: Date,
        scratch: inout [BidAskCandidate], transfer: [UInt8] = []
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
        // `transfers: require` with something suspended: the best two sides that may sell (deposit) and buy
        // (withdraw), by exchange, for a pair of two different exchanges.
        var blocked = false
        var sellable: (first: Side?, second: Side?, firstExchange: Int, secondExchange: Int) = (nil, nil, -1, -1)
        var buyable: (first: Side?, second: Side?, firstExchange: Int, secondExchange: Int) = (nil, nil, -1, -1)
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
            let flags = transfer.isEmpty ? 0 : transfer[marketBase + exchange * quoteCount]
            let value: Double
            switch basis {
            case .bidask, .depth:
                if let quote = book.quote(inSlot: slot) {
                    scratch.append(BidAskCandidate(quote: quote, factor: conversion.value, rates: conversion.rates, transfer: flags))
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
            if !transfer.isEmpty {
                if flags != 0 { blocked = true }
                if flags & TransferBlocks.deposit == 0 {
                    if sellable.first.map({ priceRef > $0.ref }) ?? true {
                        sellable = (side, sellable.first, exchange, sellable.firstExchange)
                    } else if sellable.second.map({ priceRef > $0.ref }) ?? true {
                        sellable.second = side
                        sellable.secondExchange = exchange
                    }
                }
                if flags & TransferBlocks.withdraw == 0 {
                    if buyable.first.map({ priceRef < $0.ref }) ?? true {
                        buyable = (side, buyable.first, exchange, buyable.firstExchange)
                    } else if buyable.second.map({ priceRef < $0.ref }) ?? true {
                        buyable.second = side
                        buyable.secondExchange = exchange
                    }
                }
            }
        }
        let asset = entries[entry].asset
        if basis == .bidask { return PremiumCalculator.bestBidAsk(asset: asset, candidates: scratch) }
        if basis == .depth { return DepthPremium.best(rule: rules[ruleIndex].rule, asset: asset, candidates: scratch) }
        if blocked {
            // The best pair of two exchanges among those that can sell and buy: the best of each side, or, when
            // both are one exchange, the better of (best seller, second buyer) and (second seller, best buyer).
            var pair: (dear: Side, cheap: Side)?
            if let seller = sellable.first, let buyer = buyable.first {
                if sellable.firstExchange != buyable.firstExchange {
                    pair = (seller, buyer)
                } else {
                    let a = buyable.second.map { (dear: seller, cheap: $0) }
                    let b = sellable.second.map { (dear: $0, cheap: buyer) }
                    let pctA = a.map { ($0.dear.ref - $0.cheap.ref) / $0.cheap.ref } ?? -.infinity
                    let pctB = b.map { ($0.dear.ref - $0.cheap.ref) / $0.cheap.ref } ?? -.infinity
                    pair = pctA >= pctB ? a ?? b : b ?? a
                }
            }
            guard let pair else { return nil }
            high = pair.dear
            low = pair.cheap
            second = nil
        }
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
