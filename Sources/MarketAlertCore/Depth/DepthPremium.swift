import Foundation

/// `basis: depth`: the best executable trade of one asset among a rule's exchanges. For each ordered pair
/// (buy on one exchange's asks, sell on another's bids) whose books are in sync, the trade of `notional`;
/// the rule's pct is the best pair's, net of both taker fees when `net_of_fees`. An exchange whose visible
/// book cannot fill the notional takes no part. Shared by the reference calculator and the compiled plan.
enum DepthPremium {
    static func best(rule: PremiumRule, asset: String, candidates: [BidAskCandidate]) -> PremiumObservation? {
        guard candidates.count >= 2 else { return nil }
        // Each buy side's walk of its asks is done once for all sell sides, each exchange's fee looked up once,
        // and only the best pair's trade is built (`DepthMath.premium`, the same arithmetic as `pct` here).
        let chosen: (pct: Double, buy: Int, sell: Int)? = withUnsafeTemporaryAllocation(of: Double.self, capacity: candidates.count) { fees in
            for index in candidates.indices { fees[index] = rule.takerFeePct[candidates[index].quote.exchange] ?? 0 }
            var best: (pct: Double, buy: Int, sell: Int)?
            for buyIndex in candidates.indices {
                // `transfers: require`: coins bought here must be withdrawable, and depositable where they are sold.
                guard let buyBook = candidates[buyIndex].quote.depth, buyBook.isSynced,
                      candidates[buyIndex].transfer & TransferBlocks.withdraw == 0,
                      let bought = DepthMath.buy(notional: rule.notional, on: side(candidates[buyIndex], book: buyBook, fee: fees[buyIndex]))
                else { continue }
                for sellIndex in candidates.indices where sellIndex != buyIndex {
                    guard candidates[sellIndex].quote.exchange != candidates[buyIndex].quote.exchange,
                          candidates[sellIndex].transfer & TransferBlocks.deposit == 0,
                          let sellBook = candidates[sellIndex].quote.depth, sellBook.isSynced,
                          let pct = DepthMath.pct(
                            notional: rule.notional, bought: bought, buyFeePct: fees[buyIndex],
                            sell: side(candidates[sellIndex], book: sellBook, fee: fees[sellIndex]), net: rule.netOfFees)
                    else { continue }
                    if let current = best, current.pct >= pct { continue }
                    best = (pct, buyIndex, sellIndex)
                }
            }
            return best
        }
        guard let chosen, let buyBook = candidates[chosen.buy].quote.depth, let sellBook = candidates[chosen.sell].quote.depth,
              let trade = DepthMath.premium(
                notional: rule.notional, buy: side(candidates[chosen.buy], book: buyBook, rule: rule),
                sell: side(candidates[chosen.sell], book: sellBook, rule: rule))
        else { return nil }
        var found = (pct: chosen.pct, trade: trade, buy: chosen.buy, sell: chosen.sell)
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
        side(candidate, book: book, fee: rule.takerFeePct[candidate.quote.exchange] ?? 0)
    }

    private static func side(_ candidate: BidAskCandidate, book: OrderBook, fee: Double) -> DepthSide {
        DepthSide(exchange: candidate.quote.exchange, market: candidate.quote.market, book: book, factor: candidate.factor, feePct: fee)
    }
}
