import Foundation

/// One side of an executable trade, as the event's `premium.executable.buy`/`sell` carries it.
package struct ExecutableLeg: Sendable, Equatable {
    package var exchange: ExchangeID
    package var market: String
    /// Volume-weighted average price over the levels taken, in the market's quote currency.
    package var vwap: Double
    /// The same in the reference currency.
    package var vwapRef: Double
    /// Order-book levels the quantity takes.
    package var levels: Int
    package var feePct: Double
    /// The order book's own time.
    package var bookAt: Date?
}

/// The trade behind a `basis: depth` premium: buy `notional` (reference currency) on the buy side's asks,
/// sell the quantity bought into the sell side's bids.
package struct ExecutablePremium: Sendable, Equatable {
    package var notional: Double
    /// Base-asset quantity bought with `notional` (before fees) and sold on the other side.
    package var quantity: Double
    /// Proceeds / cost − 1, in percent.
    package var grossPct: Double
    /// After both taker fees: proceeds × (1 − sell fee) / (cost × (1 + buy fee)) − 1, in percent.
    package var netPct: Double
    package var buy: ExecutableLeg
    package var sell: ExecutableLeg
    /// The largest notional at which the rule's pct still meets its threshold (nil: not computed).
    package var maxNotional: Double?
}

/// One exchange's book as the math reads it: its levels, the conversion of its quote currency into the
/// reference currency, and its taker fee.
package struct DepthSide {
    package var exchange: ExchangeID
    package var market: String
    package var book: OrderBook
    /// Reference-currency value of one unit of the market's quote currency (`ConversionBasis`).
    package var factor: Double
    package var feePct: Double

    package init(exchange: ExchangeID, market: String, book: OrderBook, factor: Double, feePct: Double) {
        self.exchange = exchange
        self.market = market
        self.book = book
        self.factor = factor
        self.feePct = feePct
    }
}

/// VWAP at a size, net of fees, and the largest size that still pays: pure arithmetic over the top
/// `book.levels` levels of each side; nothing allocated.
package enum DepthMath {
    /// Spends `notional` (reference currency) on `side`'s asks: the quantity bought, its cost in the quote
    /// currency, and the levels taken; nil when the visible asks cannot fill it.
    package static func buy(notional: Double, on side: DepthSide) -> (quantity: Double, cost: Double, levels: Int)? {
        guard notional > 0, side.factor > 0, side.factor.isFinite else { return nil }
        let asks = side.book.asks
        var left = notional / side.factor  // in the quote currency
        var quantity = 0.0
        var cost = 0.0
        for index in 0..<min(asks.count, side.book.levels) {
            let price = asks.prices[index]
            let levelCost = price * asks.sizes[index]
            if levelCost >= left {
                quantity += left / price
                cost += left
                return (quantity, cost, index + 1)
            }
            quantity += asks.sizes[index]
            cost += levelCost
            left -= levelCost
        }
        return nil
    }

    /// Sells `quantity` into `side`'s bids: the proceeds in the quote currency and the levels taken; nil when
    /// the visible bids cannot take it.
    package static func sell(quantity: Double, on side: DepthSide) -> (proceeds: Double, levels: Int)? {
        guard quantity > 0 else { return nil }
        let bids = side.book.bids
        var left = quantity
        var proceeds = 0.0
        for index in 0..<min(bids.count, side.book.levels) {
            let size = bids.sizes[index]
            if size >= left {
                proceeds += left * bids.prices[index]
                return (proceeds, index + 1)
            }
            proceeds += size * bids.prices[index]
            left -= size
        }
        return nil
    }

    /// The trade of `notional` from `buy` to `sell`; nil when either book cannot fill it.
    package static func premium(notional: Double, buy: DepthSide, sell: DepthSide) -> ExecutablePremium? {
        guard let bought = Self.buy(notional: notional, on: buy), let sold = Self.sell(quantity: bought.quantity, on: sell),
              let (gross, net) = pcts(notional: notional, proceeds: sold.proceeds, buyFeePct: buy.feePct, sell: sell)
        else { return nil }
        let buyVWAP = bought.cost / bought.quantity
        let sellVWAP = sold.proceeds / bought.quantity
        return ExecutablePremium(
            notional: notional, quantity: bought.quantity, grossPct: gross, netPct: net,
            buy: ExecutableLeg(
                exchange: buy.exchange, market: buy.market, vwap: buyVWAP, vwapRef: buyVWAP * buy.factor, levels: bought.levels,
                feePct: buy.feePct, bookAt: buy.book.at),
            sell: ExecutableLeg(
                exchange: sell.exchange, market: sell.market, vwap: sellVWAP, vwapRef: sellVWAP * sell.factor, levels: sold.levels,
                feePct: sell.feePct, bookAt: sell.book.at),
            maxNotional: nil)
    }

    /// Gross and net pct of selling for `proceeds` (`sell`'s quote currency) what `notional` bought.
    @inline(__always)
    private static func pcts(notional: Double, proceeds: Double, buyFeePct: Double, sell: DepthSide) -> (gross: Double, net: Double)? {
        guard sell.factor > 0, sell.factor.isFinite else { return nil }
        let proceedsRef = proceeds * sell.factor
        let gross = (proceedsRef / notional - 1) * 100
        let net = (proceedsRef * (1 - sell.feePct / 100) / (notional * (1 + buyFeePct / 100)) - 1) * 100
        guard gross.isFinite, net.isFinite else { return nil }
        return (gross, net)
    }

    /// The pct (net or gross) of selling on `sell` what `notional` `bought` (`buy`'s result), exactly as
    /// `premium` computes it; nil when the bids cannot take it.
    static func pct(
        notional: Double, bought: (quantity: Double, cost: Double, levels: Int), buyFeePct: Double, sell: DepthSide, net: Bool
    ) -> Double? {
        guard let sold = Self.sell(quantity: bought.quantity, on: sell),
              let (gross, netPct) = pcts(notional: notional, proceeds: sold.proceeds, buyFeePct: buyFeePct, sell: sell)
        else { return nil }
        return net ? netPct : gross
    }

    /// An upper bound of `pct(notional:bought:buyFeePct:sell:net:)` without walking the bids: every coin
    /// sold at the best bid (bids are best first, so no fill is better; the pct grows with the proceeds).
    /// Nil when the bids are empty.
    @inline(__always)
    static func pctCeiling(
        notional: Double, bought: (quantity: Double, cost: Double, levels: Int), buyFeePct: Double, sell: DepthSide, net: Bool
    ) -> Double? {
        guard sell.book.bids.count > 0, sell.book.levels > 0,
              let (gross, netPct) = pcts(notional: notional, proceeds: bought.quantity * sell.book.bids.prices[0], buyFeePct: buyFeePct, sell: sell)
        else { return nil }
        return net ? netPct : gross
    }

    /// How far below the best pct a ceiling must be to skip a pair: far above the rounding of a ceiling's
    /// few operations against a walk's sum, far below any difference a rule can tell (0.001 pct points).
    static let ceilingMargin = 1e-7

    /// The pct a trade of `notional` earns (net or gross), or nil when the books cannot fill it.
    static func pct(notional: Double, buy: DepthSide, sell: DepthSide, net: Bool) -> Double? {
        premium(notional: notional, buy: buy, sell: sell).map { net ? $0.netPct : $0.grossPct }
    }

    /// The largest notional (reference currency) at which the trade still earns at least `thresholdPct`, to a
    /// relative precision of 1/1000 (better than the schema's 2 significant digits) and at most what the
    /// visible depth fills; nil when even the smallest trade earns less. The pct only falls as the notional
    /// grows (each side's VWAP worsens level by level), so a bisection finds it.
    package static func maxNotional(buy: DepthSide, sell: DepthSide, thresholdPct: Double, net: Bool) -> Double? {
        guard let ceiling = fillableNotional(buy: buy, sell: sell), ceiling > 0 else { return nil }
        if let top = pct(notional: ceiling, buy: buy, sell: sell, net: net), top >= thresholdPct { return ceiling }
        var low = ceiling * 1e-9
        guard let smallest = pct(notional: low, buy: buy, sell: sell, net: net), smallest >= thresholdPct else { return nil }
        var high = ceiling
        while (high - low) > high * 1e-3 {
            let mid = (low + high) / 2
            if let value = pct(notional: mid, buy: buy, sell: sell, net: net), value >= thresholdPct { low = mid } else { high = mid }
        }
        return low
    }

    /// The largest notional both books can fill: the buy side's visible asks, capped by what the sell side's
    /// visible bids can take.
    static func fillableNotional(buy: DepthSide, sell: DepthSide) -> Double? {
        let bids = sell.book.bids
        var sellable = 0.0
        for index in 0..<min(bids.count, sell.book.levels) { sellable += bids.sizes[index] }
        let asks = buy.book.asks
        var quantity = 0.0
        var cost = 0.0
        for index in 0..<min(asks.count, buy.book.levels) {
            let size = min(asks.sizes[index], sellable - quantity)
            guard size > 0 else { break }
            quantity += size
            cost += size * asks.prices[index]
        }
        let notional = cost * buy.factor
        return notional.isFinite && notional > 0 ? notional * (1 - 1e-12) : nil
    }
}
