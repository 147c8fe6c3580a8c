import Foundation
import MarketAlertCore
import MarketAlertTestSupport
import Testing

/// VWAP at a notional, net of fees, and the largest notional that still pays, against a reference written
/// the obvious way in `Decimal` on randomized books.
@Suite struct DepthMathTests {
    let t0 = Date(timeIntervalSince1970: 1_750_000_000)

    func side(_ exchange: ExchangeID, bids: [(Double, Double)], asks: [(Double, Double)], factor: Double = 1, fee: Double = 0.1, levels: Int = 20) -> DepthSide {
        var book = OrderBook(levels: levels)
        book.beginSnapshot()
        for (price, size) in bids { book.set(bid: true, price: price, size: size) }
        for (price, size) in asks { book.set(bid: false, price: price, size: size) }
        book.commit(at: t0, snapshot: true)
        return DepthSide(exchange: exchange, market: "BTCUSDT", book: book, factor: factor, feePct: fee)
    }

    @Test func aWorkedExampleByHand() throws {
        // Buy 10,000 on asks 100 × 50 (5,000) then 101 × 100: 50 + 5,000/101 = 99.5049… units.
        let buy = side(.binance, bids: [(99, 10)], asks: [(100, 50), (101, 100)], fee: 0.1)
        // Sell into bids 103 × 60, then 102 × 100.
        let sell = side(.upbit, bids: [(103, 60), (102, 100)], asks: [(104, 10)], fee: 0.05)
        let trade = try #require(DepthMath.premium(notional: 10_000, buy: buy, sell: sell))
        let quantity = 50 + 5_000.0 / 101
        #expect(abs(trade.quantity - quantity) < 1e-9)
        #expect(trade.buy.levels == 2)
        #expect(trade.sell.levels == 2)
        let proceeds = 60 * 103 + (quantity - 60) * 102
        #expect(abs(trade.grossPct - (proceeds / 10_000 - 1) * 100) < 1e-9)
        #expect(abs(trade.netPct - (proceeds * 0.9995 / (10_000 * 1.001) - 1) * 100) < 1e-9)
        #expect(abs(trade.buy.vwap - 10_000 / quantity) < 1e-9)
        #expect(abs(trade.sell.vwap - proceeds / quantity) < 1e-9)
    }

    @Test func aBookThatCannotFillTheNotionalGivesNothing() {
        let buy = side(.binance, bids: [(99, 1)], asks: [(100, 1)])  // 100 of asks
        let sell = side(.upbit, bids: [(103, 100)], asks: [(104, 1)])
        #expect(DepthMath.premium(notional: 10_000, buy: buy, sell: sell) == nil)
        // The same books at a size they can fill.
        #expect(DepthMath.premium(notional: 50, buy: buy, sell: sell) != nil)
        // A thin bid side cannot take the quantity.
        let thinSell = side(.upbit, bids: [(103, 0.1)], asks: [(104, 1)])
        #expect(DepthMath.premium(notional: 50, buy: buy, sell: thinSell) == nil)
    }

    @Test func onlyTheLevelsARuleReadsCount() {
        // Ten levels of 1 unit at 100…109; a rule reading 2 levels can spend at most 201.
        let asks = (0..<10).map { (100.0 + Double($0), 1.0) }
        let buy = side(.binance, bids: [(99, 1)], asks: asks, levels: 2)
        let sell = side(.upbit, bids: [(150, 100)], asks: [(151, 1)])
        #expect(DepthMath.premium(notional: 200, buy: buy, sell: sell) != nil)
        #expect(DepthMath.premium(notional: 202, buy: buy, sell: sell) == nil)
    }

    @Test func matchesADecimalReferenceOnRandomBooks() throws {
        var random = SeededRandom(state: 42)
        var compared = 0
        for _ in 0..<500 {
            let mid = Double.random(in: 50...70_000, using: &random)
            let factor = Bool.random(using: &random) ? 1 : 1 / Double.random(in: 1_200...1_500, using: &random)
            let buy = randomSide(.binance, mid: mid, factor: 1, using: &random)
            let sell = randomSide(.upbit, mid: mid / factor * Double.random(in: 0.98...1.03, using: &random), factor: factor, using: &random)
            let notional = Double.random(in: 10...(mid * 5), using: &random)
            let reference = Reference.premium(notional: notional, buy: buy, sell: sell)
            let trade = DepthMath.premium(notional: notional, buy: buy, sell: sell)
            #expect((reference == nil) == (trade == nil), "fill disagrees at notional \(notional)")
            guard let reference, let trade else { continue }
            compared += 1
            // The schema rounds pct to 4 decimals; the arithmetic agrees far below that.
            #expect(abs(trade.grossPct - reference.gross) < 1e-7)
            #expect(abs(trade.netPct - reference.net) < 1e-7)
            #expect(abs(trade.quantity / reference.quantity - 1) < 1e-9)
            #expect(trade.buy.levels == reference.buyLevels && trade.sell.levels == reference.sellLevels)
        }
        #expect(compared > 200)  // most random books fill: the comparison ran
    }

    @Test func maxNotionalIsTheLargestSizeThatStillMeetsTheThreshold() throws {
        var random = SeededRandom(state: 7)
        var found = 0
        for _ in 0..<200 {
            let mid = Double.random(in: 100...1_000, using: &random)
            let buy = randomSide(.binance, mid: mid, factor: 1, using: &random)
            let sell = randomSide(.upbit, mid: mid * Double.random(in: 1.002...1.02, using: &random), factor: 1, using: &random)
            let threshold = Double.random(in: 0...0.8, using: &random)
            guard let best = DepthMath.maxNotional(buy: buy, sell: sell, thresholdPct: threshold, net: true) else {
                // Then even a tiny trade earns less than the threshold.
                let tiny = DepthMath.premium(notional: 0.01, buy: buy, sell: sell)
                #expect(tiny.map { $0.netPct < threshold } ?? true)
                continue
            }
            found += 1
            let at = try #require(DepthMath.premium(notional: best, buy: buy, sell: sell))
            #expect(at.netPct >= threshold - 1e-9)
            // 0.2% more either cannot fill or earns less than the threshold (2 significant digits or better).
            if let beyond = DepthMath.premium(notional: best * 1.002, buy: buy, sell: sell) {
                #expect(beyond.netPct < threshold)
            }
        }
        #expect(found > 50)
    }

    func randomSide(_ exchange: ExchangeID, mid: Double, factor: Double, using random: inout SeededRandom) -> DepthSide {
        let tick = mid * 0.0005
        var bids: [(Double, Double)] = []
        var asks: [(Double, Double)] = []
        for level in 0..<Int.random(in: 1...20, using: &random) {
            bids.append((mid - tick * Double(level + 1), Double.random(in: 0.001...3, using: &random)))
            asks.append((mid + tick * Double(level + 1), Double.random(in: 0.001...3, using: &random)))
        }
        return side(exchange, bids: bids, asks: asks, factor: factor, fee: Double.random(in: 0...0.25, using: &random))
    }

    /// The arithmetic written out in `Decimal`, level by level.
    enum Reference {
        static func premium(notional: Double, buy: DepthSide, sell: DepthSide)
            -> (quantity: Double, gross: Double, net: Double, buyLevels: Int, sellLevels: Int)?
        {
            func dec(_ value: Double) -> Decimal { Decimal(string: String(value)) ?? Decimal(value) }
            var left = dec(notional) / dec(buy.factor)
            var quantity = Decimal(0)
            var buyLevels = 0
            for (price, size) in zip(buy.book.asks.prices, buy.book.asks.sizes).prefix(buy.book.levels) where left > 0 {
                let take = min(left, dec(price) * dec(size))
                quantity += take / dec(price)
                left -= take
                buyLevels += 1
            }
            guard left <= 0 else { return nil }
            var toSell = quantity
            var proceeds = Decimal(0)
            var sellLevels = 0
            for (price, size) in zip(sell.book.bids.prices, sell.book.bids.sizes).prefix(sell.book.levels) where toSell > 0 {
                let take = min(toSell, dec(size))
                proceeds += take * dec(price)
                toSell -= take
                sellLevels += 1
            }
            guard toSell <= 0 else { return nil }
            let proceedsRef = proceeds * dec(sell.factor)
            let gross = (proceedsRef / dec(notional) - 1) * 100
            let net = (proceedsRef * (1 - dec(sell.feePct) / 100) / (dec(notional) * (1 + dec(buy.feePct) / 100)) - 1) * 100
            return (NSDecimalNumber(decimal: quantity).doubleValue, NSDecimalNumber(decimal: gross).doubleValue,
                    NSDecimalNumber(decimal: net).doubleValue, buyLevels, sellLevels)
        }
    }
}
