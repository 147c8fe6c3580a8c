import Foundation
import MarketAlertCore
import MarketAlertIO

/// v3 (#27): the executable premium of one asset over 8 exchanges, each with a synced book of 20 levels a
/// side (all 56 ordered pairs walked at the rule's notional; the best pair's `max_notional` by bisection).
/// Timed three ways: the pairs at one notional (`PremiumCalculator.observe` of a depth rule whose threshold
/// the premium does not reach, so no `max_notional` is searched; budget 10 µs), `DepthMath.maxNotional` of
/// the best pair alone (budget 100 µs), and the whole observation with `max_notional` (for information).
enum ExecutablePremiumBenchmark {
    static let exchanges = 8
    static let levels = 20
    static let notional = 10_000.0

    static func run(iterations: Int) -> (String, [Verdict]) {
        let at = Date(timeIntervalSince1970: 1_750_000_000)
        let (book, ids, books) = Self.book(at: at)
        let converter = CurrencyConverter(reference: "USD", stablecoinsAs: ["USDT": "USD"], usdRates: [:])
        var rule = PremiumRule(
            name: "executable", assets: ["BTC"], exchanges: ids, quotes: ["USDT"], basis: .depth,
            levels: [AlertLevel(pct: 50, severity: .warning)], clearPct: 40)
        rule.notional = notional
        rule.takerFeePct = Dictionary(uniqueKeysWithValues: ids.map { ($0, 0.1) })
        var found: PremiumObservation?
        let onePass = Stopwatch.measure(warmup: 100, iterations: iterations) {
            found = PremiumCalculator.observe(rule: rule, asset: "BTC", book: book, converter: converter, maxQuoteAge: .seconds(30), now: at)
            Sink.consume(found?.executable?.buy.levels ?? -1)
        }
        guard let trade = found?.executable else { return ("executable premium: no pair filled the notional", [Verdict(pass: false, text: "executable premium: no trade")]) }
        // The best pair's books, as the evaluator hands them to the search.
        func side(_ exchange: ExchangeID) -> DepthSide? {
            guard let index = ids.firstIndex(of: exchange) else { return nil }
            return DepthSide(exchange: exchange, market: "BTCUSDT", book: books[index], factor: 1, feePct: 0.1)
        }
        guard let buy = side(trade.buy.exchange), let sell = side(trade.sell.exchange) else { return ("", []) }
        // Just below the pct at the notional: the search bisects (the whole visible depth does not meet it).
        let threshold = trade.netPct * 0.98
        var most: Double?
        let search = Stopwatch.measure(warmup: 100, iterations: iterations) {
            most = DepthMath.maxNotional(buy: buy, sell: sell, thresholdPct: threshold, net: true)
            Sink.consume(Int(most ?? -1))
        }
        rule.levels = [AlertLevel(pct: threshold, severity: .warning)]
        rule.clearPct = threshold / 2
        var full: PremiumObservation?
        let whole = Stopwatch.measure(warmup: 100, iterations: iterations) {
            full = PremiumCalculator.observe(rule: rule, asset: "BTC", book: book, converter: converter, maxQuoteAge: .seconds(30), now: at)
            Sink.consume(Int(full?.executable?.maxNotional ?? -1))
        }
        let rows = [
            ["executable premium, BTC, 8 exchanges × 20 levels", "runs", "median", "p90"],
            ["56 pairs at \(Int(notional)) USD (net \(String(format: "%.3f", trade.netPct))%, \(trade.buy.exchange) → \(trade.sell.exchange))",
             "\(onePass.count)", Report.us(onePass.median), Report.us(onePass.p90)],
            ["max_notional of that pair (≥ \(String(format: "%.3f", threshold))%: \(Int(most ?? 0)) USD)",
             "\(search.count)", Report.us(search.median), Report.us(search.p90)],
            ["both: the observation with max_notional", "\(whole.count)", Report.us(whole.median), Report.us(whole.p90)],
        ]
        let verdicts = [
            Verdict(pass: onePass.median <= 10e-6, text: "executable premium over 8 exchanges × 20 levels at one notional: median \(Report.us(onePass.median)) (budget 10 µs)"),
            Verdict(pass: search.median <= 100e-6 && most != nil && full?.executable?.maxNotional != nil,
                    text: "max_notional over 20 levels: median \(Report.us(search.median)) (budget 100 µs)"),
        ]
        return (Report.table(rows), verdicts)
    }

    /// Exchange k's book: best bid 100,000 × (1 + k × 0.05%) − 0.5, best ask 1.0 above it, 20 levels of
    /// 0.02–0.06 BTC a side 0.5 apart (10,000 USD takes 2–5 levels). Exchange 7 is the dearest.
    static func book(at: Date) -> (QuoteBook, [ExchangeID], [OrderBook]) {
        let ids = ExchangeRegistry.standard.listed.map(\.id).prefix(exchanges)
        var book = QuoteBook()
        var books: [OrderBook] = []
        for (k, exchange) in ids.enumerated() {
            var depth = OrderBook(levels: levels)
            depth.beginSnapshot()
            let mid = 100_000 * (1 + Double(k) * 0.0005)
            for level in 0..<levels {
                let size = 0.02 + Double((level * 7 + k) % 5) * 0.01
                depth.set(bid: true, price: mid - 0.5 - Double(level) * 0.5, size: size)
                depth.set(bid: false, price: mid + 0.5 + Double(level) * 0.5, size: size)
            }
            depth.commit(at: at, snapshot: true)
            var quote = Quote(
                exchange: exchange, market: "BTCUSDT", base: "BTC", quote: "USDT", last: nil, bid: Price(mid - 0.5), ask: Price(mid + 0.5),
                exchangeTime: at, receivedAt: at, transport: .stream)
            quote.depth = depth
            book.replace(exchange, with: [quote])
            books.append(depth)
        }
        return (book, Array(ids), books)
    }
}
