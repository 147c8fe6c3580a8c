import Foundation
import MarketAlertCore
import MarketAlertIO

/// Times one full premium evaluation (every rule × every asset) over a book of 8 exchanges × 50 assets:
/// six USDT exchanges, and Upbit and Bithumb in KRW through a USD/KRW rate.
struct EvaluationBenchmark {
    struct Result {
        var rules: Int
        var keys: Int
        var firingKeys: Int
        var samples: Samples
    }

    /// The registry's exchanges whose home markets are in USDT, and those in KRW (in the registry's order).
    static let usdtExchanges: [ExchangeID] = ExchangeRegistry.standard.listed.filter { $0.wire.homeQuote != "KRW" }.map(\.id)
    static let krwExchanges: [ExchangeID] = ExchangeRegistry.standard.listed.filter { $0.wire.homeQuote == "KRW" }.map(\.id)

    let markets: BenchMarkets

    /// The rules the daemon benchmark uses too: `global` over the six USDT exchanges, `kimchi` over
    /// Upbit, Bithumb and Binance (KRW first, else USDT), 50 assets each.
    static func premiumSettings(assets: [String]) -> PremiumSettings {
        var settings = PremiumSettings()
        settings.rules = [
            PremiumRule(
                name: "global", assets: assets, exchanges: usdtExchanges, quotes: ["USDT"],
                levels: PremiumRule.defaultLevels, clearPct: 0.04, repeatInterval: .seconds(3600)),
            PremiumRule(
                name: "kimchi", assets: assets, exchanges: [.upbit, .bithumb, .binance], quotes: ["KRW", "USDT"],
                levels: [AlertLevel(pct: 3, severity: .warning), AlertLevel(pct: 5, severity: .critical)], clearPct: 2.5,
                forDuration: .seconds(30), repeatInterval: .seconds(6 * 3600)),
        ]
        return settings
    }

    /// A book in which every tenth asset is 0.12% dearer on Bybit (global warning) and every tenth asset,
    /// offset by five, 3.5% dearer on Upbit (kimchi warning); the rest differ by at most 0.02%.
    static func book(markets: BenchMarkets, receivedAt: Date) -> QuoteBook {
        var book = QuoteBook()
        for (exchangeIndex, exchange) in (usdtExchanges + krwExchanges).enumerated() {
            let krw = krwExchanges.contains(exchange)
            var quotes: [Quote] = []
            for (assetIndex, asset) in markets.assets.enumerated() {
                var factor = 1 + Double((assetIndex * 7 + exchangeIndex * 3) % 11) * 0.00002
                if exchange == .bybit, assetIndex % 10 == 0 { factor += 0.0012 }
                if exchange == .upbit, assetIndex % 10 == 5 { factor += 0.035 }
                let price = markets.usdPrice(asset) * factor * (krw ? BenchMarkets.usdKRW : 1)
                let quote = krw ? "KRW" : "USDT"
                func p(_ value: Double) -> Price? { Price(DecimalFormat.fixed(value, places: DecimalFormat.places(for: value))) }
                quotes.append(Quote(
                    exchange: exchange, market: marketID(exchange, base: asset, quote: quote), base: asset, quote: quote,
                    last: p(price), bid: krw ? nil : p(price * 0.99999), ask: krw ? nil : p(price * 1.00001), receivedAt: receivedAt))
            }
            book.replace(exchange, with: quotes)
        }
        return book
    }

    static func marketID(_ exchange: ExchangeID, base: String, quote: String) -> String {
        let pair = MarketPair(base: base, quote: quote)
        return ExchangeRegistry.standard[exchange]?.marketID(pair) ?? "\(base)/\(quote)"
    }

    func run(iterations: Int) -> Result {
        let start = Date()
        let (settings, book, converter) = Self.inputs(markets: markets, at: start)
        var evaluator = PremiumEvaluator()
        var tick = 0
        // Time advances 1 ms per evaluation, so every quote stays fresh (max_quote_age 30 s) and the
        // kimchi `for: 30s` keeps its keys pending: the steady state of a running daemon.
        let samples = Stopwatch.measure(warmup: max(50, iterations / 10), iterations: iterations) {
            tick += 1
            let decisions = evaluator.evaluate(settings: settings, book: book, converter: converter, now: start.addingTimeInterval(Double(tick) / 1000))
            Sink.consume(decisions.count)
        }
        let keys = settings.rules.reduce(0) { $0 + $1.assets.count }
        let firing = evaluator.states.values.filter { if case .firing = $0.phase { true } else { false } }.count
        return Result(rules: settings.rules.count, keys: keys, firingKeys: firing, samples: samples)
    }

    /// What a full evaluation reads: the two rules, every exchange's 50 markets at `start`, USD/KRW 1400.
    static func inputs(markets: BenchMarkets, at start: Date) -> (PremiumSettings, QuoteBook, CurrencyConverter) {
        let settings = premiumSettings(assets: markets.assets)
        let rate = FXRate(base: "USD", quote: "KRW", rate: Price(BenchMarkets.usdKRW)!, provider: "dunamu", at: start)  // 1400 is a valid price
        let converter = CurrencyConverter(reference: settings.reference, stablecoinsAs: settings.stablecoinsAs, usdRates: ["KRW": rate])
        return (settings, book(markets: markets, receivedAt: start), converter)
    }
}
