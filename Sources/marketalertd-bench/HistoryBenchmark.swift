import Foundation
import MarketAlertCore
import MarketAlertIO

/// Premium history's budgets: `premium.context` over 30 days at 1 minute (43,200 samples) ≤ 1 ms per alert,
/// and history at 8 exchanges × 50 assets ≤ 1% of a core: the evaluation with and without history, plus
/// once per interval the flush of every key's slot and its batch write to a real SQLite file.
struct HistoryBenchmark {
    static let contextBudget = 1e-3
    static let cpuBudget = 0.01
    /// Full evaluations per second in the daemon at 8 exchanges polled every second (one per answer).
    static let evaluationsPerSecond = 8.0

    struct Result {
        var context: Samples
        var plain: Samples
        var withHistory: Samples
        var flushAndWrite: Samples
        var keys: Int

        /// Extra CPU share of one core: the evaluation delta at 8/s plus one flush and write per minute.
        var cpuShare: Double {
            max(0, withHistory.median - plain.median) * HistoryBenchmark.evaluationsPerSecond + flushAndWrite.median / 60
        }
    }

    let markets: BenchMarkets

    static func settings(assets: [String]) -> Settings {
        var settings = Settings()
        settings.premium = EvaluationBenchmark.premiumSettings(assets: assets)
        settings.history = HistorySettings(resolution: .seconds(60), retention: .seconds(90 * 86_400))
        return settings
    }

    func run(iterations: Int) async throws -> Result {
        let start = Date(timeIntervalSince1970: 1_795_000_000 - 1_795_000_000.truncatingRemainder(dividingBy: 60))
        let settings = Self.settings(assets: markets.assets)

        // Context: one key with a full 30-day window.
        var context = PremiumHistory()
        context.configure(settings)
        let key = PremiumEvents.key(rule: "kimchi", asset: markets.assets[0])
        context.warm((0..<43_200).map { i in
            let pct = 2 + sin(Double(i) / 500) * 1.5
            return HistorySample(rule: "kimchi", asset: markets.assets[0], at: start.addingTimeInterval(Double(i) * 60), minPct: pct, maxPct: pct, lastPct: pct)
        })
        let now = start.addingTimeInterval(43_200 * 60)
        var pct = 3.0
        let contextSamples = Stopwatch.measure(warmup: 20, iterations: max(200, iterations / 4)) {
            pct += 0.0001
            Sink.consume(context.context(key, rule: "kimchi", pct: pct, now: now)?.samples ?? 0)
        }

        // Evaluation with and without history (1 ms of virtual time per evaluation, as EvaluationBenchmark).
        let book = EvaluationBenchmark.book(markets: markets, receivedAt: start)
        let rate = FXRate(base: "USD", quote: "KRW", rate: Price(BenchMarkets.usdKRW)!, provider: "dunamu", at: start)  // 1400 is valid
        let converter = CurrencyConverter(reference: settings.premium.reference, stablecoinsAs: settings.premium.stablecoinsAs, usdRates: ["KRW": rate])
        func evaluations(history: Bool) -> Samples {
            var evaluator = PremiumEvaluator()
            if history { evaluator.history.configure(settings) }
            var tick = 0
            return Stopwatch.measure(warmup: max(50, iterations / 10), iterations: iterations) {
                tick += 1
                Sink.consume(evaluator.evaluate(settings: settings.premium, book: book, converter: converter, now: start.addingTimeInterval(Double(tick) / 1000)).count)
            }
        }
        // Interleaved halves, so load changes on the machine hit both alike.
        var plain: [Double] = []
        var withHistory: [Double] = []
        for _ in 0..<4 {
            plain += evaluations(history: false).sorted
            withHistory += evaluations(history: true).sorted
        }

        // Once per interval: close every key's slot and write the batch in one transaction.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bench-history-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try SQLiteStore(directory: directory)
        var history = PremiumHistory()
        history.configure(settings)
        let keys = settings.premium.rules.flatMap { rule in rule.assets.map { PremiumEvents.key(rule: rule.name, asset: $0) } }
        var writes: [Double] = []
        let clock = ContinuousClock()
        for minute in 0..<60 {
            let at = start.addingTimeInterval(Double(minute) * 60)
            for (index, key) in keys.enumerated() { history.observe(key, pct: Double(index % 7) * 0.01, now: at) }
            let began = clock.now
            var publication = Publication()
            publication.history = history.flush(now: at.addingTimeInterval(60))
            try await store.commit(publication, at: at)
            writes.append((clock.now - began).seconds)
        }
        return Result(
            context: contextSamples, plain: Samples(plain), withHistory: Samples(withHistory), flushAndWrite: Samples(writes), keys: keys.count)
    }

    static func report(_ r: Result) -> (String, [Verdict]) {
        let rows = [
            ["history", "runs", "min", "median", "p90", "max"],
            ["context over 43,200 samples (one alert)", "\(r.context.count)", Report.us(r.context.min), Report.us(r.context.median), Report.us(r.context.p90), Report.us(r.context.max)],
            ["evaluation, \(r.keys) keys, no history", "\(r.plain.count)", Report.us(r.plain.min), Report.us(r.plain.median), Report.us(r.plain.p90), Report.us(r.plain.max)],
            ["evaluation, \(r.keys) keys, with history", "\(r.withHistory.count)", Report.us(r.withHistory.min), Report.us(r.withHistory.median), Report.us(r.withHistory.p90), Report.us(r.withHistory.max)],
            ["flush + SQLite batch of \(r.keys) samples", "\(r.flushAndWrite.count)", Report.ms(r.flushAndWrite.min), Report.ms(r.flushAndWrite.median), Report.ms(r.flushAndWrite.p90), Report.ms(r.flushAndWrite.max)],
        ]
        let verdicts = [
            Verdict(
                pass: r.context.median <= contextBudget,
                text: "premium context over 43,200 samples: median \(Report.us(r.context.median)), p90 \(Report.us(r.context.p90)) (budget \(Report.ms(contextBudget)))"),
            Verdict(
                pass: r.cpuShare <= cpuBudget,
                text: String(
                    format: "history at 8 exchanges × 50 assets: %.3f%% of a core (evaluation +%@ at 8/s, flush + write %@ per minute; budget 1%%)",
                    r.cpuShare * 100, Report.us(max(0, r.withHistory.median - r.plain.median)), Report.ms(r.flushAndWrite.median))),
        ]
        return (Report.table(rows), verdicts)
    }
}
