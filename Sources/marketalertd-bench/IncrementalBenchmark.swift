import Foundation
import MarketAlertCore
import MarketAlertIO

/// Times the engine's incremental path: one stream quote for one market of one exchange, handled by
/// `AlertEngine.handle` (book update, source health, only the rules and the asset it feeds), over the
/// evaluation benchmark's settled book of 8 exchanges × 50 assets.
struct IncrementalBenchmark {
    let markets: BenchMarkets

    func run(iterations: Int) -> Samples {
        let start = Date()
        var engine = Self.settledEngine(markets: markets, at: start)
        let full = EvaluationBenchmark.book(markets: markets, receivedAt: start)
        // One quote at a time, the asset cycling, its price nudged within the quiet band (no transitions).
        let assets = markets.assets
        var tick = 0
        return Stopwatch.measure(warmup: max(100, iterations / 10), iterations: iterations) {
            tick += 1
            let asset = assets[(tick * 7) % assets.count]
            let now = start.addingTimeInterval(Double(tick) / 10_000)
            guard var quote = full.quote(.okx, MarketPair(base: asset, quote: "USDT")) else { return }
            quote.receivedAt = now
            let actions = engine.handle(.quotes(.okx, [quote], .update), now: now)
            Sink.consume(actions.count)
        }
    }

    /// An engine with the evaluation benchmark's two rules, USD/KRW from Dunamu and a snapshot of every
    /// exchange's 50 markets at `start`: settled, as a running daemon's is.
    static func settledEngine(markets: BenchMarkets, at start: Date) -> AlertEngine {
        var engine = Self.engine(
            premium: EvaluationBenchmark.premiumSettings(assets: markets.assets),
            exchanges: EvaluationBenchmark.usdtExchanges + EvaluationBenchmark.krwExchanges, at: start)
        let full = EvaluationBenchmark.book(markets: markets, receivedAt: start)
        for id in EvaluationBenchmark.usdtExchanges + EvaluationBenchmark.krwExchanges {
            let quotes = markets.assets.compactMap { asset in
                full.quote(id, MarketPair(base: asset, quote: EvaluationBenchmark.krwExchanges.contains(id) ? "KRW" : "USDT"))
            }
            _ = engine.handle(.quotes(id, quotes, .snapshot), now: start)
        }
        return engine
    }

    /// An engine with `premium`'s rules over `exchanges` (no quotes yet) and USD/KRW from Dunamu at `start`.
    static func engine(premium: PremiumSettings, exchanges: [ExchangeID], at start: Date) -> AlertEngine {
        var settings = Settings()
        settings.premium = premium
        for id in exchanges {
            settings.exchanges[id] = ExchangeSettings(id: id, baseURL: URL(fileURLWithPath: "/"))
        }
        settings.fx.providers = [FXProviderSettings(kind: .dunamu, baseURL: URL(fileURLWithPath: "/"))]
        var engine = AlertEngine(settings: settings, now: start) { "bench-event" }
        var book = FXRateBook()
        if let price = Price(BenchMarkets.usdKRW) {
            book.recordSuccess(.dunamu, rates: [FXRate(base: "USD", quote: "KRW", rate: price, provider: "dunamu", at: start)], at: start)
        }
        _ = engine.handle(.fxRound(book, FXFailover(chain: [.standard(.dunamu)], currencies: ["KRW"], maxAge: .seconds(900))), now: start)
        return engine
    }
}
