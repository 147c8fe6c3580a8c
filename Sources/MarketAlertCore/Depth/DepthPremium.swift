import Foundation

/// `basis: depth`: the best executable trade of one asset among a rule's exchanges. For each ordered pair
/// (buy on one exchange's asks, sell on another's bids) whose books are in sync, the trade of `notional`;
/// the rule's pct is the best pair's, net of both taker fees when `net_of_fees`. An exchange whose visible
/// book cannot fill the notional takes no part. Shared by the reference calculator and the compiled plan.
enum DepthPremium {
    static func best(rule: PremiumRule, asset: String, candidates: [BidAskCandidate]) -> PremiumObservation? {
        guard candidates.count >= 2 else { return nil }
        // Each candidate's side (its book, factor and fee) is made once, in a stack buffer: a `DepthSide` holds
        // the book's four level arrays, and making one per pair (64 for 8 exchanges) was half the time in
        // retains and releases. Each buy side's walk of its asks is done once for all sell sides, and only the
        // best pair's trade is built (`DepthMath.premium`, the same arithmetic as `pct` here).
        let found: (pct: Double, trade: ExecutablePremium, buy: Int, sell: Int)? =
            withUnsafeTemporaryAllocation(of: DepthSide.self, capacity: candidates.count) { sides in
                withUnsafeTemporaryAllocation(of: Int.self, capacity: candidates.count) { origin in
                    guard let base = sides.baseAddress else { return nil }
                    var count = 0
                    for index in candidates.indices {
                        guard let book = candidates[index].quote.depth, book.isSynced else { continue }
                        (base + count).initialize(to: side(candidates[index], book: book, rule: rule))
                        origin[count] = index
                        count += 1
                    }
                    defer { base.deinitialize(count: count) }
                    return best(rule: rule, candidates: candidates, sides: UnsafeBufferPointer(start: base, count: count), origin: origin)
                }
            }
        guard var found else { return nil }
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

    /// The best ordered pair over the synced candidates' `sides` (candidate `origin[k]` for side k) and its
    /// trade; the first best in (buy, sell) candidate order, as every pair is tried in that order.
    private static func best(
        rule: PremiumRule, candidates: [BidAskCandidate], sides: UnsafeBufferPointer<DepthSide>, origin: UnsafeMutableBufferPointer<Int>
    ) -> (pct: Double, trade: ExecutablePremium, buy: Int, sell: Int)? {
        var best: (pct: Double, buy: Int, sell: Int)?
        for buy in sides.indices {
            // `transfers: require`: coins bought here must be withdrawable, and depositable where they are sold.
            guard candidates[origin[buy]].transfer & TransferBlocks.withdraw == 0,
                  let bought = DepthMath.buy(notional: rule.notional, on: sides[buy])
            else { continue }
            for sell in sides.indices where sell != buy {
                guard sides[sell].exchange != sides[buy].exchange,
                      candidates[origin[sell]].transfer & TransferBlocks.deposit == 0
                else { continue }
                // A pair that could not beat the best so far even if every coin sold at the top bid is not
                // walked (most pairs, once a good one is found); the margin keeps rounding from skipping a tie.
                if let current = best,
                   let ceiling = DepthMath.pctCeiling(
                       notional: rule.notional, bought: bought, buyFeePct: sides[buy].feePct, sell: sides[sell], net: rule.netOfFees),
                   ceiling < current.pct - DepthMath.ceilingMargin
                { continue }
                guard let pct = DepthMath.pct(
                        notional: rule.notional, bought: bought, buyFeePct: sides[buy].feePct, sell: sides[sell], net: rule.netOfFees)
                else { continue }
                if let current = best, current.pct >= pct { continue }
                best = (pct, buy, sell)
            }
        }
        guard let best, let trade = DepthMath.premium(notional: rule.notional, buy: sides[best.buy], sell: sides[best.sell]) else { return nil }
        return (best.pct, trade, origin[best.buy], origin[best.sell])
    }

    private static func side(_ candidate: BidAskCandidate, book: OrderBook, rule: PremiumRule) -> DepthSide {
        side(candidate, book: book, fee: rule.takerFeePct[candidate.quote.exchange] ?? 0)
    }

    private static func side(_ candidate: BidAskCandidate, book: OrderBook, fee: Double) -> DepthSide {
        DepthSide(exchange: candidate.quote.exchange, market: candidate.quote.market, book: book, factor: candidate.factor, feePct: fee)
    }
}
