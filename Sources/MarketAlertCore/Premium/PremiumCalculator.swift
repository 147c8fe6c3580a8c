import Foundation

/// A quote's price as one side of a premium.
package struct PricedQuote: Sendable, Equatable {
    /// The quote, without its order book (`depth` is nil): an observation outlives the evaluation (the alert
    /// state keeps it), and a book it held would be shared with the quote book's slot, so the next message
    /// of that market would copy the whole book (five allocations a depth message). What a notification says
    /// of the book is in `PremiumObservation.executable`.
    package var quote: Quote
    /// Which price of the quote: last, mid, bid or ask.
    package var side: String
    /// The price in the market's own currency.
    package var price: Price
    /// The same price in the reference currency.
    package var priceRef: Double
    package var rates: [FXRate]

    package init(quote: Quote, side: String, price: Price, priceRef: Double, rates: [FXRate]) {
        self.quote = quote
        self.quote.depth = nil
        self.side = side
        self.price = price
        self.priceRef = priceRef
        self.rates = rates
    }
}

/// The premium of one asset under one rule at one moment.
package struct PremiumObservation: Sendable, Equatable {
    package var asset: String
    /// Percent: (high - low) / low × 100, or for `bidask` (high bid - low ask) / low ask × 100.
    package var pct: Double
    package var high: PricedQuote
    package var low: PricedQuote
    /// `basis: depth`: the trade behind `pct` (high is its sell side, low its buy side).
    package var executable: ExecutablePremium?

    /// Every FX rate the two sides needed, without repeats.
    package var rates: [FXRate] {
        var seen: [FXRate] = []
        for rate in high.rates + low.rates where !seen.contains(rate) { seen.append(rate) }
        return seen
    }
}

/// Premium math: pure, allocation-light, and never a number from a missing price. The evaluator runs the
/// compiled equivalent (`PremiumPlan.observe`, over quote book slots); this is the reference it is tested
/// against (`PremiumPlanEquivalenceTests`).
package enum PremiumCalculator {
    /// Computes the premium of `asset` under `rule`. Returns nil with fewer than two fresh, convertible quotes,
    /// so a missing, stale or unconvertible price can never produce a premium (nor 0, inf or NaN).
    package static func observe(
        rule: PremiumRule, asset: String, book: QuoteBook, converter: some ConversionBasis, maxQuoteAge: Duration, now: Date
    ) -> PremiumObservation? {
        let oldest = now.addingTimeInterval(-maxQuoteAge.seconds)
        switch rule.basis {
        case .last, .mid:
            // One pass, no intermediate arrays: the dearest, the cheapest, and the first two priced (for the
            // all-equal case).
            let sideName = rule.basis == .last ? "last" : "mid"
            var high: PricedQuote?
            var low: PricedQuote?
            var second: PricedQuote?
            var count = 0
            for exchange in rule.exchanges {
                guard let quote = firstListedQuote(exchange: exchange, asset: asset, quotes: rule.quotes, book: book),
                      quote.at >= oldest,
                      let conversion = converter.toReference(1, currency: quote.quote),
                      let price = rule.basis == .last ? quote.last : quote.mid
                else { continue }
                let side = PricedQuote(
                    quote: quote, side: sideName, price: price, priceRef: price.value * conversion.value, rates: conversion.rates)
                guard side.priceRef.isFinite, side.priceRef > 0 else { continue }
                count += 1
                if count == 2 { second = side }
                if high.map({ side.priceRef > $0.priceRef }) ?? true { high = side }
                if low.map({ side.priceRef < $0.priceRef }) ?? true { low = side }
            }
            guard count >= 2, let dear = high, var cheap = low else { return nil }
            if dear.quote.exchange == cheap.quote.exchange, let second {
                // Every price is equal: the premium is 0 between the first two exchanges.
                cheap = second
            }
            let pct = (dear.priceRef - cheap.priceRef) / cheap.priceRef * 100
            guard pct.isFinite else { return nil }
            return PremiumObservation(asset: asset, pct: pct, high: dear, low: cheap)
        case .bidask, .depth:
            var candidates: [BidAskCandidate] = []
            candidates.reserveCapacity(rule.exchanges.count)
            for exchange in rule.exchanges {
                guard let quote = firstListedQuote(exchange: exchange, asset: asset, quotes: rule.quotes, book: book) else { continue }
                guard quote.at >= oldest else { continue }
                guard let conversion = converter.toReference(1, currency: quote.quote) else { continue }
                candidates.append(BidAskCandidate(quote: quote, factor: conversion.value, rates: conversion.rates))
            }
            if rule.basis == .depth { return DepthPremium.best(rule: rule, asset: asset, candidates: candidates) }
            return bestBidAsk(asset: asset, candidates: candidates)
        }
    }

    /// The quote of the first currency in `quotes` that `exchange` trades `asset` in.
    package static func firstListedQuote(exchange: ExchangeID, asset: String, quotes: [String], book: QuoteBook) -> Quote? {
        for currency in quotes {
            if let quote = book.quote(exchange, MarketPair(base: asset, quote: currency)) { return quote }
        }
        return nil
    }

    /// The best (highest bid on one exchange − lowest ask on another) / ask over the candidates, converted to
    /// the reference currency: shared by this reference calculator and the compiled plan.
    static func bestBidAsk(asset: String, candidates: [BidAskCandidate]) -> PremiumObservation? {
        guard candidates.count >= 2 else { return nil }
        var best: PremiumObservation?
        for seller in candidates {
            // `transfers: require`: the dear side must take deposits, the cheap one allow withdrawals.
            guard let bid = seller.quote.bid, seller.transfer & TransferBlocks.deposit == 0 else { continue }
            let bidRef = bid.value * seller.factor
            for buyer in candidates where buyer.quote.exchange != seller.quote.exchange {
                guard let ask = buyer.quote.ask, buyer.transfer & TransferBlocks.withdraw == 0 else { continue }
                let askRef = ask.value * buyer.factor
                guard askRef > 0, bidRef.isFinite, askRef.isFinite else { continue }
                let pct = (bidRef - askRef) / askRef * 100
                if let current = best, current.pct >= pct { continue }
                best = PremiumObservation(
                    asset: asset, pct: pct,
                    high: PricedQuote(quote: seller.quote, side: "bid", price: bid, priceRef: bidRef, rates: seller.rates),
                    low: PricedQuote(quote: buyer.quote, side: "ask", price: ask, priceRef: askRef, rates: buyer.rates))
            }
        }
        return best
    }
}
