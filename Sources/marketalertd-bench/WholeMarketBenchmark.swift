import Foundation
import MarketAlertCore
import MarketAlertIO

/// v3 `assets: all` (#28): one full evaluation of a rule over every exchange of the registry (13) × 400
/// assets, the assets chosen by `WatchedAssets` from a universe in which every exchange lists them in its
/// home quote (USDT, or KRW through USD/KRW 1400). Budget: 500 µs (median).
struct WholeMarketBenchmark {
    static let assetCount = 400
    static let budget = 500e-6

    struct Result {
        var exchanges: Int
        var assets: Int
        var samples: Samples
    }

    static func run(iterations: Int) -> (String, Verdict) {
        let start = Date()
        let exchanges = EvaluationBenchmark.usdtExchanges + EvaluationBenchmark.krwExchanges
        let names = (0..<assetCount).map { String(format: "A%03d", $0) }
        var universe = MarketUniverse()
        for exchange in exchanges {
            let home = EvaluationBenchmark.krwExchanges.contains(exchange) ? "KRW" : "USDT"
            universe.set(exchange, names.map { UniverseMarket(MarketPair(base: $0, quote: home), volume24h: 5e9) })
        }
        var rule = PremiumRule(
            name: "whole-market", assets: [], exchanges: exchanges, quotes: ["KRW", "USDT"],
            levels: [AlertLevel(pct: 3, severity: .warning), AlertLevel(pct: 5, severity: .critical)], clearPct: 2.5,
            forDuration: .seconds(30), repeatInterval: .seconds(6 * 3600))
        rule.selection.all = true
        rule.selection.minVolume24h = 1_000_000
        let rate = FXRate(base: "USD", quote: "KRW", rate: Price(BenchMarkets.usdKRW)!, provider: "dunamu", at: start)  // 1400 is a valid price
        let converter = CurrencyConverter(reference: "USD", stablecoinsAs: ["USDT": "USD"], usdRates: ["KRW": rate])
        let choice = WatchedAssets.choose(for: rule, in: universe) { converter.toReference($0, currency: $1)?.value }
        rule.assets = choice.assets
        var settings = PremiumSettings()
        settings.rules = [rule]
        // Every asset priced 1 + its index; each exchange a few hundredths of a percent apart, every tenth
        // asset 3.5% dearer on the first KRW exchange.
        var book = QuoteBook()
        for (exchangeIndex, exchange) in exchanges.enumerated() {
            let krw = EvaluationBenchmark.krwExchanges.contains(exchange)
            let quotes = names.enumerated().compactMap { index, asset -> Quote? in
                var factor = 1 + Double((index * 7 + exchangeIndex * 3) % 11) * 0.00002
                if exchange == EvaluationBenchmark.krwExchanges.first, index % 10 == 5 { factor += 0.035 }
                let price = Double(index + 1) * factor * (krw ? BenchMarkets.usdKRW : 1)
                let quote = krw ? "KRW" : "USDT"
                return Quote(
                    exchange: exchange, market: EvaluationBenchmark.marketID(exchange, base: asset, quote: quote), base: asset, quote: quote,
                    last: Price(DecimalFormat.fixed(price, places: 6)), receivedAt: start)
            }
            book.replace(exchange, with: quotes)
        }
        var evaluator = PremiumEvaluator()
        var tick = 0
        let samples = Stopwatch.measure(warmup: max(20, iterations / 10), iterations: iterations) {
            tick += 1
            let decisions = evaluator.evaluate(settings: settings, book: book, converter: converter, now: start.addingTimeInterval(Double(tick) / 1000))
            Sink.consume(decisions.count)
        }
        let result = Result(exchanges: exchanges.count, assets: rule.assets.count, samples: samples)
        let rows = [
            ["whole market (assets: all)", "keys", "runs", "min", "median", "p90", "max"],
            ["\(result.exchanges) exchanges × \(result.assets) assets", "\(result.assets)", "\(samples.count)",
             Report.us(samples.min), Report.us(samples.median), Report.us(samples.p90), Report.us(samples.max)],
        ]
        let verdict = Verdict(
            pass: result.assets == assetCount && samples.median < budget,
            text: "evaluate assets: all over \(result.exchanges) exchanges × \(result.assets) assets: median \(Report.us(samples.median)), "
                + "p90 \(Report.us(samples.p90)) (budget \(Report.us(budget)))")
        return (Report.table(rows), verdict)
    }
}
