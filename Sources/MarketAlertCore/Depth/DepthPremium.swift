import Foundation

/// `basis: depth`: the best executable trade of one asset among a rule's exchanges. For each ordered pair
/// (buy on one exchange's asks, sell on another's bids) whose books are in sync, the trade of `notional`;
/// the rule's pct is the best pair's, net of both taker fees when `net_of_fees`. An exchange whose visible
/// book cannot fill the notional takes no part. Shared by the reference calculator and the compiled plan.
enum DepthPremium {
    static func best(rule: PremiumRule, asset: String, candidates: [BidAskCandidate]) -> PremiumObservation? {
        guard candidates.count >= 2 else { return nil }
        var best: (pct: Double, trade: ExecutablePremium, buy: Int, sell: Int)?
        for buyIndex in candidates.indices {
            // `transfers: require`: coins bought here must be withdrawable, and depositable where they are sold.
            guard let buyBook = candidates[buyIndex].quote.depth, buyBook.isSynced,
                  candidates[buyIndex].transfer & TransferBlocks.withdraw == 0
            else { continue }
            let buy = side(candidates[buyIndex], book: buyBook, rule: rule)
            for sellIndex in candidates.indices where sellIndex != buyIndex {
                guard candidates[sellIndex].quote.exchange != candidates[buyIndex].quote.exchange,
                      candidates[sellIndex].transfer & TransferBlocks.deposit == 0,
                      let sellBook = candidates[sellIndex].quote.depth, sellBook.isSynced,
                      let trade = DepthMath.premium(notional: rule.notional, buy: buy, sell: side(candidates[sellIndex], book: sellBook, rule: rule))
                else { continue }
                let pct = rule.netOfFees ? trade.netPct : trade.grossPct
                if let current = best, current.pct >= pct { continue }
                best = (pct, trade, buyIndex, sellIndex)
            }
        }
        guard var found = best else { return nil }
        let buyer = candidates[found.buy]
        let seller = candidates[found.sell]
        // The largest size that still meets the rule's first level, when this one does.
        if let threshold = rule.levels.first?.pct, found.pct >= threshold, let buyBook = buyer.quote.depth, let sellBook = seller.quote.depth {
            found.trade.maxNotional = DepthMath.maxNotional(
                buy: side(buyer, book: buyBook, rule: rule), sell: side(seller, book: sellBook, rule: rule),
                thresholdPct: threshold, net: rule.netOfFees)
        }
        guard let sellPrice = Price(found.trade.sell.vwap), let buyPrice = Price(found.trade.buy.vwap) else { return nil }
        return PremiumObservation(
            asset: asset, pct: found.pct,
            high: PricedQuote(quote: seller.quote, side: "bid", price: sellPrice, priceRef: found.trade.sell.vwapRef, rates: seller.rates),
            low: PricedQuote(quote: buyer.quote, side: "ask", price: buyPrice, priceRef: found.trade.buy.vwapRef, rates: buyer.rates),
            executable: found.trade)
    }

    private static func side(_ candidate: BidAskCandidate, book: OrderBook, rule: PremiumRule) -> DepthSide {
        DepthSide(
            exchange: candidate.quote.exchange, market: candidate.quote.market, book: book, factor: candidate.factor,
            feePct: rule.takerFeePct[candidate.quote.exchange] ?? 0)
    }
}
