import Foundation
import MarketAlertCore
import MarketAlertTestSupport
import Testing

/// A stream batch re-evaluates only the keys it feeds (the plan's entries of the batch's assets, in rules
/// that watch the exchange), and the cached deadline is always what a fresh computation gives. Over seeded
/// random batches: prices that cross, pend (`for`), fire, repeat and clear, quotes that go stale.
@Suite struct PremiumStreamEvaluationTests {
    let base = PremiumPlanEquivalenceTests()

    /// Every rule, repeating (deadlines of firing keys), or only the rule with a `for` (the deadline is then
    /// a pending key's: its `for`, or its quotes going stale).
    @Test(arguments: [3, 11, 2026], [false, true])
    func aBatchTouchesOnlyItsKeysAndTheDeadlineStaysExact(seed: UInt64, onlyPending: Bool) throws {
        var rng = SeededRandom(state: seed)
        var settings = PremiumSettings()
        settings.maxQuoteAge = .seconds(30)
        settings.rules = base.rules(0)
        for index in settings.rules.indices { settings.rules[index].repeatInterval = .seconds(20) }
        if onlyPending { settings.rules = base.rules(0).filter { $0.forDuration > .zero } }
        let rate = FXRate(base: "USD", quote: "KRW", rate: try #require(Price("1400")), provider: "dunamu", at: base.start)
        let converter = CurrencyConverter(reference: "USD", stablecoinsAs: ["USDT": "USD"], usdRates: ["KRW": rate])
        var book = QuoteBook()
        var evaluator = PremiumEvaluator()
        for exchange in base.exchanges { book.replace(exchange, with: base.randomQuotes(exchange, now: base.start, using: &rng)) }
        _ = evaluator.evaluate(settings: settings, book: book, converter: converter, now: base.start)
        var decided = 0
        var pendingSeen = false
        for step in 1...400 {
            let now = base.start.addingTimeInterval(Double(step) * 0.5)
            let exchange = base.exchanges[Int.random(in: 0..<base.exchanges.count, using: &rng)]
            let all = base.randomQuotes(exchange, now: now, using: &rng)
            let batch = Array(all.shuffled(using: &rng).prefix(Int.random(in: 1...3, using: &rng)))
            book.update(exchange, with: batch)
            let before = evaluator.states
            let decisions = evaluator.evaluate(
                settings: settings, book: book, converter: converter, now: now, onlyInvolving: exchange, assets: AssetFilter(batch))
            // The keys it may touch: rules watching the exchange × the batch's assets.
            let fed = Set(settings.rules.filter { $0.exchanges.contains(exchange) }.flatMap { rule in
                batch.map(\.base).filter(rule.assets.contains).map { PremiumEvents.key(rule: rule.name, asset: $0) }
            })
            for (key, state) in evaluator.states where !fed.contains(key) {
                #expect(before[key] == state, "step \(step): \(key) changed, but the batch does not feed it")
            }
            for key in fed {
                let rule = try #require(settings.rules.first { key.hasPrefix("premium/\($0.name)/") })
                var expected = PremiumCalculator.observe(
                    rule: rule, asset: String(key.split(separator: "/")[2]), book: book, converter: converter,
                    maxQuoteAge: settings.maxQuoteAge, now: now)
                if let pct = expected?.pct, pct > rule.maxPlausiblePct { expected = nil }
                #expect(evaluator.observation(forKey: key, in: book) == expected, "step \(step): \(key)")
            }
            // Decisions come in plan order (rule, then asset), as a full evaluation would give them.
            let order = settings.rules.flatMap { rule in rule.assets.map { PremiumEvents.key(rule: rule.name, asset: $0) } }
            let positions = decisions.compactMap { order.firstIndex(of: $0.key) }
            #expect(positions == positions.sorted(), "step \(step)")
            decided += decisions.count
            pendingSeen = pendingSeen || evaluator.states.values.contains { if case .pending = $0.phase { true } else { false } }
            // The status line's top premium is the highest latest one.
            let latest = evaluator.latest(in: book)
            let top = evaluator.highestPremium(in: book)
            #expect(top?.pct == latest.values.map(\.pct).max(), "step \(step)")
            #expect(top.map { top in latest.values.contains { $0.asset == top.asset && $0.pct == top.pct } } ?? latest.isEmpty, "step \(step)")
            // The cached deadline against one computed from scratch (`retain` drops the cache).
            var fresh = evaluator
            _ = fresh.retain(settings: settings)
            #expect(evaluator.deadline(settings: settings) == fresh.deadline(settings: settings), "step \(step)")
        }
        // The random batches must reach the paths that move deadlines, or the comparison proves little.
        #expect(decided > (onlyPending ? 3 : 20))
        #expect(pendingSeen)
    }

    /// A pending key whose quotes are renewed while it stays pending: its deadline (the oldest quote going
    /// stale, before the `for` ends) moves later with each renewal, though its phase never changes.
    @Test func aPendingKeysDeadlineFollowsItsQuotes() throws {
        let t0 = base.start
        var settings = PremiumSettings()
        settings.maxQuoteAge = .seconds(30)
        settings.rules = [PremiumRule(
            name: "kimchi", assets: ["BTC"], exchanges: [.upbit, .binance], quotes: ["KRW", "USDT"],
            levels: [AlertLevel(pct: 3, severity: .warning)], clearPct: 2, forDuration: .seconds(60))]
        let rate = FXRate(base: "USD", quote: "KRW", rate: try #require(Price("1400")), provider: "dunamu", at: t0)
        let converter = CurrencyConverter(reference: "USD", stablecoinsAs: ["USDT": "USD"], usdRates: ["KRW": rate])
        func quote(_ exchange: ExchangeID, _ currency: String, _ price: String, at: Date) -> Quote {
            Quote(exchange: exchange, market: "BTC" + currency, base: "BTC", quote: currency, last: Price(price), exchangeTime: at,
                  receivedAt: at, transport: .stream)
        }
        var book = QuoteBook()
        var evaluator = PremiumEvaluator()
        func feed(_ quote: Quote, now: Date) {
            book.update(quote.exchange, with: [quote])
            _ = evaluator.evaluate(
                settings: settings, book: book, converter: converter, now: now, onlyInvolving: quote.exchange, assets: AssetFilter([quote]))
        }
        feed(quote(.binance, "USDT", "100", at: t0), now: t0)
        feed(quote(.upbit, "KRW", "145600", at: t0), now: t0)  // 104 USD: 4%, pending
        #expect(evaluator.state(forKey: "premium/kimchi/BTC")?.phase == .pending(since: t0))
        #expect(evaluator.deadline(settings: settings) == t0.addingTimeInterval(30.001))
        feed(quote(.binance, "USDT", "100.1", at: t0.addingTimeInterval(10)), now: t0.addingTimeInterval(10))
        #expect(evaluator.deadline(settings: settings) == t0.addingTimeInterval(30.001), "the upbit quote is still the oldest")
        feed(quote(.upbit, "KRW", "145700", at: t0.addingTimeInterval(12)), now: t0.addingTimeInterval(12))
        #expect(evaluator.state(forKey: "premium/kimchi/BTC")?.phase == .pending(since: t0))
        #expect(evaluator.deadline(settings: settings) == t0.addingTimeInterval(40.001))
    }
}
