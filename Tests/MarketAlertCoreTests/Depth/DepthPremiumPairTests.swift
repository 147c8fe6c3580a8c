import Foundation
import MarketAlertCore
import MarketAlertTestSupport
import Testing

/// The depth premium's choice of pair skips the pairs that cannot win (`DepthMath.pctCeiling`): on random
/// books over eight exchanges it must still choose exactly the pair, and the pct, that trying every ordered
/// pair with `DepthMath.premium` chooses (the first best in buy, then sell, order).
@Suite struct DepthPremiumPairTests {
    let now = Date(timeIntervalSince1970: 1_750_000_000)
    let exchanges: [ExchangeID] = [.binance, .bybit, .okx, .bitget, .kraken, .coinbase, .upbit, .bithumb]
    let usd = CurrencyConverter(reference: "USD", stablecoinsAs: ["USDT": "USD"], usdRates: [:])

    func quote(_ exchange: ExchangeID, mid: Double, spread: Double, levels: Int, step: Double, size: () -> Double) -> Quote {
        var book = OrderBook(levels: 20)
        book.beginSnapshot()
        for level in 0..<levels {
            book.set(bid: true, price: mid - spread / 2 - Double(level) * step, size: size())
            book.set(bid: false, price: mid + spread / 2 + Double(level) * step, size: size())
        }
        book.commit(at: now, snapshot: true)
        var quote = Quote(
            exchange: exchange, market: "BTCUSDT", base: "BTC", quote: "USDT", last: nil,
            bid: book.bids.best.flatMap { Price($0.price) }, ask: book.asks.best.flatMap { Price($0.price) }, receivedAt: now,
            transport: .stream)
        quote.depth = book
        return quote
    }

    @Test(arguments: [true, false]) func thePairChosenIsTheBestOfAllPairs(net: Bool) throws {
        var generator = SeededRandom(state: net ? 7 : 11)
        func uniform(_ range: ClosedRange<Double>) -> Double { Double.random(in: range, using: &generator) }
        var compared = 0
        for round in 0..<300 {
            var rule = PremiumRule(
                name: "depth", assets: ["BTC"], exchanges: exchanges, quotes: ["USDT"], basis: .depth,
                levels: PremiumRule.defaultLevels, clearPct: 0.04)
            rule.notional = [1_000, 10_000, 100_000][round % 3]
            rule.netOfFees = net
            rule.takerFeePct = Dictionary(uniqueKeysWithValues: exchanges.map { ($0, uniform(0...0.2)) })
            // Mids within ±0.3% (some rounds all equal, so ties and near-ties are tried), books of 1-20 levels.
            let equal = round % 10 == 0
            let quotes = exchanges.map { exchange in
                quote(
                    exchange, mid: equal ? 100_000 : 100_000 * (1 + uniform(-0.003...0.003)), spread: equal ? 10 : uniform(0...40),
                    levels: Int(uniform(1...20)), step: uniform(0.5...20), size: { uniform(0.001...2) })
            }
            var book = QuoteBook()
            for quote in quotes { book.replace(quote.exchange, with: [quote]) }
            let observed = PremiumCalculator.observe(rule: rule, asset: "BTC", book: book, converter: usd, maxQuoteAge: .seconds(30), now: now)
            // Every ordered pair, the obvious way.
            var best: (pct: Double, buy: ExchangeID, sell: ExchangeID)?
            for buy in quotes {
                for sell in quotes where sell.exchange != buy.exchange {
                    let buySide = DepthSide(exchange: buy.exchange, market: buy.market, book: try #require(buy.depth), factor: 1, feePct: rule.takerFeePct[buy.exchange] ?? 0)
                    let sellSide = DepthSide(exchange: sell.exchange, market: sell.market, book: try #require(sell.depth), factor: 1, feePct: rule.takerFeePct[sell.exchange] ?? 0)
                    guard let trade = DepthMath.premium(notional: rule.notional, buy: buySide, sell: sellSide) else { continue }
                    let pct = net ? trade.netPct : trade.grossPct
                    if let current = best, current.pct >= pct { continue }
                    best = (pct, buy.exchange, sell.exchange)
                }
            }
            #expect((observed == nil) == (best == nil), "round \(round)")
            guard let observed, let best else { continue }
            compared += 1
            #expect(observed.pct == best.pct, "round \(round)")
            #expect(observed.low.quote.exchange == best.buy && observed.high.quote.exchange == best.sell, "round \(round)")
        }
        #expect(compared > 200)
    }
}
