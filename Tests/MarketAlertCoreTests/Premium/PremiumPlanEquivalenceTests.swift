import Foundation
import MarketAlertCore
import MarketAlertTestSupport
import Testing

/// The compiled evaluation (`PremiumPlan` over `QuoteBook` slots) against the reference math
/// (`PremiumCalculator.observe`, which looks every quote up by market): over seeded random books with
/// missing, stale, unpriced and KRW quotes, every basis, currency fallbacks, markets appearing after the
/// plan was compiled, markets dropped by a snapshot, and a rule change, each key's latest observation
/// must be exactly the reference's.
@Suite struct PremiumPlanEquivalenceTests {
    let start = Date(timeIntervalSince1970: 1_750_000_000)
    let assets = ["BTC", "ETH", "SOL", "DOGE", "XRP", "ADA"]
    let exchanges: [ExchangeID] = [.binance, .bybit, .okx, .upbit, .bithumb, .kraken]

    func rules(_ variant: Int) -> [PremiumRule] {
        var rules = [
            PremiumRule(
                name: "global", assets: assets, exchanges: [.binance, .bybit, .okx, .kraken], quotes: ["USDT"], basis: .last,
                levels: PremiumRule.defaultLevels, clearPct: 0.04),
            PremiumRule(
                name: "kimchi", assets: assets, exchanges: [.upbit, .bithumb, .binance], quotes: ["KRW", "USDT"], basis: .last,
                levels: [AlertLevel(pct: 3, severity: .warning)], clearPct: 2.5, forDuration: .seconds(30)),
            PremiumRule(
                name: "mid", assets: Array(assets.prefix(4)), exchanges: [.okx, .bybit, .upbit], quotes: ["USDT", "KRW"], basis: .mid,
                levels: PremiumRule.defaultLevels, clearPct: 0.04),
            PremiumRule(
                name: "spread", assets: Array(assets.suffix(4)), exchanges: [.binance, .okx, .kraken, .bithumb], quotes: ["USDT", "KRW"],
                basis: .bidask, levels: PremiumRule.defaultLevels, clearPct: 0.04),
        ]
        if variant == 1 {
            rules[0].assets = ["ETH", "BTC", "LINK"]
            rules.remove(at: 2)
        }
        return rules
    }

    func randomQuotes(_ exchange: ExchangeID, now: Date, using rng: inout SeededRandom) -> [Quote] {
        var quotes: [Quote] = []
        for (index, asset) in (assets + ["LINK"]).enumerated() {
            for currency in ["USDT", "KRW"] where Int.random(in: 0..<4, using: &rng) != 0 {
                let usd = Double(index + 1) * 10 * (1 + Double.random(in: -0.02...0.02, using: &rng))
                let price = currency == "KRW" ? usd * 1400 : usd
                func text(_ value: Double) -> Price? {
                    Int.random(in: 0..<8, using: &rng) == 0 ? nil : Price(String(format: "%.4f", value))
                }
                let age = Double.random(in: 0...45, using: &rng)  // max_quote_age is 30 s: some are stale
                quotes.append(Quote(
                    exchange: exchange, market: "\(asset)\(currency)", base: asset, quote: currency, last: text(price),
                    bid: text(price * 0.9995), ask: text(price * 1.0005), exchangeTime: Bool.random(using: &rng) ? now.addingTimeInterval(-age) : nil,
                    receivedAt: now.addingTimeInterval(-age / 2), transport: .stream))
            }
        }
        return quotes
    }

    @Test(arguments: [1, 7, 42, 1234])
    func compiledEvaluationMatchesTheReference(seed: UInt64) throws {
        var rng = SeededRandom(state: seed)
        var settings = PremiumSettings()
        settings.maxQuoteAge = .seconds(30)
        let rate = FXRate(base: "USD", quote: "KRW", rate: try #require(Price("1400")), provider: "dunamu", at: start)
        let converter = CurrencyConverter(reference: "USD", stablecoinsAs: ["USDT": "USD"], usdRates: ["KRW": rate])
        var book = QuoteBook()
        var evaluator = PremiumEvaluator()
        var compared = 0
        var observed = 0
        for round in 0..<60 {
            let now = start.addingTimeInterval(Double(round))
            settings.rules = rules(round < 40 ? 0 : 1)  // a rule change after 40 rounds
            // Exchanges join over time (new slots after the plan was compiled); some snapshots, some updates.
            for exchange in exchanges.prefix(min(exchanges.count, 2 + round / 3)) {
                let quotes = randomQuotes(exchange, now: now, using: &rng)
                if Bool.random(using: &rng) {
                    book.replace(exchange, with: quotes)
                } else {
                    book.update(exchange, with: Array(quotes.prefix(Int.random(in: 0...quotes.count, using: &rng))))
                }
            }
            if round == 25 { book.remove(.okx) }
            _ = evaluator.evaluate(settings: settings, book: book, converter: converter, now: now)
            for rule in settings.rules {
                for asset in rule.assets {
                    let key = PremiumEvents.key(rule: rule.name, asset: asset)
                    var expected = PremiumCalculator.observe(
                        rule: rule, asset: asset, book: book, converter: converter, maxQuoteAge: settings.maxQuoteAge, now: now)
                    if let pct = expected?.pct, pct > rule.maxPlausiblePct { expected = nil }
                    #expect(evaluator.observation(forKey: key, in: book) == expected, "round \(round), \(key)")
                    #expect(evaluator.latest(in: book)[key] == expected, "round \(round), \(key) (dictionary view)")
                    #expect(evaluator.states[key] != nil, "every evaluated key has a state")
                    compared += 1
                    if expected != nil { observed += 1 }
                }
            }
        }
        // The random books must exercise both outcomes, or the comparison proves little.
        #expect(observed > compared / 4)
        #expect(observed < compared)
        // Keys of the removed rule are detached, then forgotten by `retain`.
        #expect(evaluator.state(forKey: "premium/mid/BTC") != nil)
        let gone = evaluator.retain(settings: settings)
        #expect(Set(gone).isSuperset(of: ["premium/mid/BTC", "premium/global/SOL"]))
        #expect(evaluator.state(forKey: "premium/mid/BTC") == nil)
        #expect(evaluator.states.keys.allSatisfy { !$0.hasPrefix("premium/mid/") })
    }

    @Test func restoredStatesAreCarriedIntoThePlan() throws {
        var restored = LeveledAlertStateMachine()
        _ = restored.observe(1, now: start, policy: LeveledAlertPolicy(levels: PremiumRule.defaultLevels, clearBelow: 0.04))
        #expect(restored.isFiring)
        var evaluator = PremiumEvaluator(states: ["premium/global/BTC": restored, "premium/old/BTC": restored])
        #expect(evaluator.state(forKey: "premium/global/BTC") == restored)
        var settings = PremiumSettings()
        settings.rules = [rules(0)[0]]
        _ = evaluator.evaluate(settings: settings, book: QuoteBook(), converter: CurrencyConverter(reference: "USD", stablecoinsAs: ["USDT": "USD"], usdRates: [:]), now: start)
        // No prices: the firing state holds (nil never resolves), and the unknown key is still there until retain.
        #expect(evaluator.state(forKey: "premium/global/BTC")?.isFiring == true)
        #expect(evaluator.states["premium/old/BTC"] != nil)
        #expect(evaluator.retain(settings: settings) == ["premium/old/BTC"])
        #expect(evaluator.states.count == assets.count)
    }
}
