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
        switch rules[ruleIndex].rule.basis {
        case .bidask, .depth:
            return observeCandidates(
                entry: entry, rule: ruleIndex, book: book, conversions: conversions, oldest: oldest, scratch: &scratch, transfer: transfer)
        case .last, .mid:
            return observeSides(entry: entry, rule: ruleIndex, book: book, conversions: conversions, oldest: oldest, transfer: transfer)?
                .observation(in: book)
        }
    }

    /// A `bidask` or `depth` rule's observation, from its fresh, convertible candidates (one per exchange).
    func observeCandidates(
        entry: Int, rule ruleIndex: Int, book: QuoteBook, conversions: [ReferenceConversion?], oldest: Date,
        scratch: inout [BidAskCandidate], transfer: [UInt8] = []
    ) -> PremiumObservation? {
        scratch.removeAll(keepingCapacity: true)
        // Emptied again before returning: the candidates' quotes share the quote book's order books, and a
        // book still held here when its market's next message comes would be copied then, not updated in place.
        defer { scratch.removeAll(keepingCapacity: true) }
        let quoteCount = rules[ruleIndex].currencies.count
        let marketBase = entries[entry].marketBase
        let oldest = oldest.timeIntervalSinceReferenceDate
        for exchange in 0..<rules[ruleIndex].rule.exchanges.count {
            guard let (slot, summary, position) = firstPresent(marketBase: marketBase, exchange: exchange, quoteCount: quoteCount, book: book),
                  summary.at >= oldest, let conversion = conversions[rules[ruleIndex].currencies[position]],
                  let quote = book.quote(inSlot: slot)
            else { continue }
            let flags = transfer.isEmpty ? 0 : transfer[marketBase + exchange * quoteCount]
            scratch.append(BidAskCandidate(quote: quote, factor: conversion.value, rates: conversion.rates, transfer: flags))
        }
        let asset = entries[entry].asset
        if rules[ruleIndex].rule.basis == .depth { return DepthPremium.best(rule: rules[ruleIndex].rule, asset: asset, candidates: scratch) }
        return PremiumCalculator.bestBidAsk(asset: asset, candidates: scratch)
    }

    /// The first quote currency the exchange has a quote in (fresh or not: a stale one is not replaced by the
    /// next currency): its slot, summary and position in the rule's currencies.
    @inline(__always)
    private func firstPresent(marketBase: Int, exchange: Int, quoteCount: Int, book: QuoteBook) -> (Int, QuoteSummary, Int)? {
        var position = 0
        while position < quoteCount {
            let candidate = slots[marketBase + exchange * quoteCount + position]
            if candidate >= 0 {
                let summary = book.summary(inSlot: candidate)
                if summary.present { return (candidate, summary, position) }
            }
            position += 1
        }
        return nil
    }

    /// A `last` or `mid` rule's premium by slot: the dearest and the cheapest side, no quote copied
    /// (`ObservedSides.observation(in:)` makes the observation).
    func observeSides(
        entry: Int, rule ruleIndex: Int, book: QuoteBook, conversions: [ReferenceConversion?], oldest: Date, transfer: [UInt8] = []
    ) -> ObservedSides? {
        let basis = rules[ruleIndex].rule.basis
        let exchangeCount = rules[ruleIndex].rule.exchanges.count
        let quoteCount = rules[ruleIndex].currencies.count
        let marketBase = entries[entry].marketBase
        // The dearest, the cheapest and the second priced side, by slot.
        typealias Side = (slot: Int, ref: Double, currency: Int, at: Double)
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
            guard let (slot, summary, position) = firstPresent(marketBase: marketBase, exchange: exchange, quoteCount: quoteCount, book: book),
                  summary.at >= oldest
            else { continue }
            let currency = rules[ruleIndex].currencies[position]
            // The factor alone, read in place (the rates are taken only for the two sides kept).
            guard let factor = conversions[currency]?.value else { continue }
            let flags = transfer.isEmpty ? 0 : transfer[marketBase + exchange * quoteCount]
            guard let value = basis == .last ? summary.last : summary.mid else { continue }
            let priceRef = value * factor
            guard priceRef.isFinite, priceRef > 0 else { continue }
            let side: Side = (slot, priceRef, currency, summary.at)
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
        guard count >= 2, let dear = high, var cheap = low else { return nil }
        if dear.slot == cheap.slot, let second {
            // Every price is equal (one exchange is both): the premium is 0 between the first two exchanges.
            cheap = second
        }
        let pct = (dear.ref - cheap.ref) / cheap.ref * 100
        guard pct.isFinite else { return nil }
        return ObservedSides(
            asset: entries[entry].asset, pct: pct, last: basis == .last,
            high: ObservedSides.Side(slot: dear.slot, ref: dear.ref, at: dear.at, rates: conversions[dear.currency]?.rates ?? []),
            low: ObservedSides.Side(slot: cheap.slot, ref: cheap.ref, at: cheap.at, rates: conversions[cheap.currency]?.rates ?? []))
    }
}
