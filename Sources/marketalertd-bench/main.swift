import Foundation

// marketalertd-bench: the performance budgets, measured (see BenchOptions for the flags, scripts/bench).
//   decode of a full-size Binance /ticker/24hr list (~3,000 symbols) < 10 ms
//   one full premium evaluation, 8 exchanges × 50 assets          < 50 µs
//   one stream quote through the engine (incremental)             < 5 µs
//   one /metrics scrape, server-side, 8 exchanges × 50 assets      < 2 ms
//   steady resident memory of the running release daemon under that load < 40 MB   (--rss)
//   CPU of the running release daemon when nothing happens < 0.1% of a core         (--idle)
//   premium context over 43,200 samples < 1 ms per alert; history < 1% of a core at 8 × 50

let options: BenchOptions
do {
    options = try BenchOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(2)
}

print(Report.header())
var verdicts: [Verdict] = []
do {
    let fixtures = FixtureFiles(override: options.fixtures)
    let list = try BinanceBulkList(fixtures: fixtures)
    let markets = try BenchMarkets(list)
    let shapes = try ExchangeRowShapes(fixtures: fixtures, binanceList: list)
    print("watched assets (\(markets.assets.count)): \(markets.assets.joined(separator: " "))")
    if options.rss {
        let interval = options.idle ? "1h" : "1s"
        print("\nDaemon \(options.idle ? "idle" : "memory"): \(options.binary), \(options.seconds) s, 8 exchanges × 50 assets at poll_interval \(interval) (+ Dunamu USD/KRW)")
        let apis = try await MockExchangeAPIs(markets: markets, list: list, shapes: shapes)
        let result: DaemonRSSBenchmark.Result
        do {
            result = try await DaemonRSSBenchmark(binary: options.binary, seconds: options.seconds, apis: apis, pollInterval: interval).run()
        } catch {
            await apis.shutdown()
            throw error
        }
        await apis.shutdown()
        let (text, rssVerdicts) = options.idle ? Report.idle(result, seconds: options.seconds) : Report.rss(result, seconds: options.seconds)
        print(text)
        verdicts += rssVerdicts
    } else {
        print("\nDecode (\(BinanceBulkList.fixture): \(list.recordedCount) recorded rows + \(list.rows.count - list.recordedCount) copies; 50 watched USDT pairs)")
        let decode = try DecodeBenchmark(list: list, markets: markets, shapes: shapes).run(iterations: options.iterations)
        let (decodeTable, decodeVerdict) = Report.decode(decode)
        print(decodeTable)
        if let decodeVerdict { verdicts.append(decodeVerdict) }

        print("\nEvaluation (PremiumEvaluator.evaluate, all rules × all assets, steady state)")
        let evaluation = EvaluationBenchmark(markets: markets).run(iterations: options.evalIterations)
        let (evaluationTable, evaluationVerdict) = Report.evaluation(evaluation)
        print(evaluationTable)
        verdicts.append(evaluationVerdict)

        print("\nIncremental evaluation (AlertEngine.handle of one stream quote: book, health, one rule × one asset)")
        let incremental = IncrementalBenchmark(markets: markets).run(iterations: options.evalIterations * 5)
        let (incrementalTable, incrementalVerdict) = Report.incremental(incremental)
        print(incrementalTable)
        verdicts.append(incrementalVerdict)

        print("\nStream decode (one frame → market table → Quote, per frame)")
        let (streamTable, streamVerdict) = try StreamDecodeBenchmark.run(assets: markets.assets, iterations: options.iterations)
        print(streamTable)
        verdicts.append(streamVerdict)

        print("\nPremium history (context percentile, sampling in the evaluation, batch write per interval)")
        let history = try await HistoryBenchmark(markets: markets).run(iterations: options.evalIterations)
        let (historyTable, historyVerdicts) = HistoryBenchmark.report(history)
        print(historyTable)
        verdicts += historyVerdicts

        print("\n/metrics scrape (DaemonMetrics.scrape, server-side: engine view, outbox, gauges, exposition)")
        let scrape = try await MetricsScrapeBenchmark(markets: markets).run(iterations: options.iterations * 2)
        let (scrapeTable, scrapeVerdict) = Report.scrape(scrape)
        print(scrapeTable)
        verdicts.append(scrapeVerdict)
    }
} catch {
    print("FAIL bench could not run: \(error)")
    exit(2)
}

print("")
for verdict in verdicts { print(verdict.line) }
exit(verdicts.allSatisfy(\.pass) ? 0 : 1)
