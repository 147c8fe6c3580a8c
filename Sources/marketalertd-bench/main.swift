import Foundation

// marketalertd-bench: the performance budgets, measured (see BenchOptions for the flags, scripts/bench).
//   decode of a full-size Binance /ticker/24hr list (~3,000 symbols) < 10 ms
//   one full premium evaluation, 8 exchanges × 50 assets          < 50 µs
//   one stream quote through the engine (incremental)             < 5 µs
//   one /metrics scrape, server-side, 8 exchanges × 50 assets      < 2 ms
//   stream frame received → notification written (in process), p99 < 1 ms
//   heap allocations per stream frame (intake → engine, every exchange) and per full evaluation: none
//   the running release daemon under that load: steady RSS ≤ 25 MB, peak ≤ 32 MB, CPU ≤ 1% (--rss)
//   CPU of the running release daemon (HTTP server listening) when nothing happens < 0.1% of a core (--idle)
//   the release daemon with 8 exchanges × 50 assets streaming at 50 frames/s each:
//   CPU ≤ 1.5% of a core, RSS ≤ 25 MB (peak ≤ 32 MB) and flat                         (--streams)
//   the release daemon with 8 exchanges × 300 assets streaming (ticker channels): CPU ≤ 3%, RSS ≤ 45 MB, flat
//                                                                                     (--streams --assets 300)
//   the daemon's CPU per frame ≤ 0.25× a Python peer's (websockets + orjson) on the same Binance stream (--peer)
//   HA: a transition's fenced PostgreSQL commit before delivery, median ≤ 5 ms                       (--ha)
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
if options.ha {
    do {
        print("HA on PostgreSQL (a private cluster on 127.0.0.1): the writes of one transition, \(options.iterations) in a row")
        let (table, verdict) = HAWriteBenchmark.report(try await HAWriteBenchmark(iterations: options.iterations).run())
        print(table)
        print("")
        print(verdict.line)
        exit(verdict.pass ? 0 : 1)
    } catch {
        print("FAIL bench could not run: \(error)")
        exit(2)
    }
}

do {
    let fixtures = FixtureFiles(override: options.fixtures)
    let list = try BinanceBulkList(fixtures: fixtures)
    // The in-process tables are for 50 assets; a daemon run may watch more (`--assets`).
    let markets = try BenchMarkets(list, count: options.rss ? options.assets : BenchMarkets.assetCount)
    let dunamu = try fixtures.firstRow("dunamu/forex-recent-KRWUSD-20210813.json")
    print("watched assets (\(markets.assets.count)): \(markets.assets.joined(separator: " "))")
    if let python = options.peerPython {
        let rate = options.rateGiven ? options.rate : 200
        print("\nDaemon beside a Python peer: \(options.binary) and \(python) \(options.peerScript)\(options.floor.map { " (and the C floor \($0))" } ?? ""), one Binance bookTicker stream of 50 markets at \(rate) frames/s to each, \(options.seconds) s")
        let apis = try await MockExchangeAPIs(markets: markets, list: list, dunamu: dunamu)
        let result: PeerBenchmark.Result
        do {
            result = try await PeerBenchmark(
                binary: options.binary, python: python, script: options.peerScript, floor: options.floor, seconds: options.seconds, rate: rate,
                markets: markets, apis: apis
            ).run()
        } catch {
            await apis.shutdown()
            throw error
        }
        await apis.shutdown()
        let (text, peerVerdicts) = PeerBenchmark.report(result)
        print(text)
        verdicts += peerVerdicts
    } else if options.rss {
        // Streaming: REST stays the fallback, polled as the daemon would beside live streams (every 5 s).
        let interval = options.idle ? "1h" : options.streams ? "5s" : "1s"
        let what = options.idle ? "idle" : options.streams ? "streaming at \(options.rate) frames/s per exchange" : "memory"
        let exchangeCount = options.exchanges?.count ?? ExchangeNames.all.count
        print("\nDaemon \(what): \(options.binary), \(options.seconds) s, \(exchangeCount) exchanges × \(markets.assets.count) assets at poll_interval \(interval) (+ Dunamu USD/KRW)")
        let apis = try await MockExchangeAPIs(markets: markets, list: list, dunamu: dunamu)
        let feeds = options.streams ? try await StreamFeeds(markets: markets, exchanges: options.exchanges) : nil
        let result: DaemonRSSBenchmark.Result
        do {
            var benchmark = DaemonRSSBenchmark(binary: options.binary, seconds: options.seconds, apis: apis, pollInterval: interval)
            benchmark.streams = feeds
            benchmark.streamRate = options.rate
            benchmark.exchanges = options.exchanges
            benchmark.dropEvery = options.dropEvery.map { .seconds($0) }
            result = try await benchmark.run()
        } catch {
            await apis.shutdown()
            await feeds?.shutdown()
            throw error
        }
        await apis.shutdown()
        await feeds?.shutdown()
        let (text, rssVerdicts) = if let feeds {
            Report.streams(
                result, seconds: options.seconds, rate: options.rate, pushed: feeds.pushedCounts, assets: markets.assets.count,
                drops: feeds.drops.withLock { $0 })
        } else if options.idle {
            Report.idle(result, seconds: options.seconds)
        } else {
            Report.rss(result, seconds: options.seconds, exchanges: options.exchanges?.map(\.rawValue) ?? ExchangeNames.all)
        }
        print(text)
        verdicts += rssVerdicts
    } else if options.depthStreams {
        verdicts += try await runDepthStreams(options, markets: markets, list: list, dunamu: dunamu)
    } else if options.depthOnly {
        try runDepthBenchmarks(evalIterations: options.evalIterations, markets: markets, verdicts: &verdicts)
    } else {
        print("\nDecode (\(BinanceBulkList.fixture): \(list.recordedCount) recorded rows + \(list.rows.count - list.recordedCount) copies; 50 watched USDT pairs)")
        let decode = try DecodeBenchmark(list: list, markets: markets).run(iterations: options.iterations)
        let (decodeTable, decodeVerdict) = Report.decode(decode)
        print(decodeTable)
        if let decodeVerdict { verdicts.append(decodeVerdict) }

        print("\nEvaluation (PremiumEvaluator.evaluate, all rules × all assets, steady state)")
        let evaluation = EvaluationBenchmark(markets: markets).run(iterations: options.evalIterations)
        let (evaluationTable, evaluationVerdict) = Report.evaluation(evaluation)
        print(evaluationTable)
        verdicts.append(evaluationVerdict)

        print("\nWhole market (assets: all, every exchange × 400 assets, one full evaluation)")
        let (wholeMarketTable, wholeMarketVerdict) = WholeMarketBenchmark.run(iterations: max(50, options.evalIterations / 10))
        print(wholeMarketTable)
        verdicts.append(wholeMarketVerdict)

        print("\nIncremental evaluation (AlertEngine.handle of one stream quote: book, health, one rule × one asset)")
        let incremental = IncrementalBenchmark(markets: markets).run(iterations: options.evalIterations * 5)
        let (incrementalTable, incrementalVerdict) = Report.incremental(incremental)
        print(incrementalTable)
        verdicts.append(incrementalVerdict)

        print("\nStream decode (one frame → market table → Quote, per frame)")
        let (streamTable, streamVerdict) = try StreamDecodeBenchmark.run(assets: markets.assets, iterations: options.iterations)
        print(streamTable)
        verdicts.append(streamVerdict)

        print("\nAllocations per message (each exchange's frames through StreamIntake into EngineCore; full evaluations)")
        let (allocationTable, allocationVerdicts) = FrameAllocationBenchmark.run(markets: markets)
        print(allocationTable)
        verdicts += allocationVerdicts

        try runDepthBenchmarks(evalIterations: options.evalIterations, markets: markets, verdicts: &verdicts)

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

        print("\nFrame → notification (real runtime: Binance stream on 127.0.0.1 → engine → publisher → JSON stdout sink on a file)")
        let latency = try await TickToNotificationBenchmark(frames: options.iterations * 2).run()
        let (latencyTable, latencyVerdict) = Report.latency(latency)
        print(latencyTable)
        verdicts.append(latencyVerdict)
    }
} catch {
    print("FAIL bench could not run: \(error)")
    exit(2)
}

print("")
for verdict in verdicts { print(verdict.line) }
exit(verdicts.allSatisfy(\.pass) ? 0 : 1)

/// The v3 depth benchmarks (also alone, with `--depth`): one depth message per adapter, the checksum adapters,
/// and the executable premium.
func runDepthBenchmarks(evalIterations: Int, markets: BenchMarkets, verdicts: inout [Verdict]) throws {
    print("\nDepth messages (v3 books: one message applied to a 20-level book, per adapter)")
    let (depthTable, depthVerdicts) = DepthApplyBenchmark.run()
    print(depthTable)
    verdicts += depthVerdicts

    print("\nDepth messages with checksums (v3 books: OKX, Bitget, Kraken recorded messages, CRC-32 checked, 20 levels kept)")
    let (checksumDepthTable, checksumDepthVerdicts) = try ChecksumDepthBenchmark.run()
    print(checksumDepthTable)
    verdicts += checksumDepthVerdicts

    print("\nExecutable premium (v3 basis depth: one asset over 8 exchanges × 20 levels, at one notional and max_notional)")
    let (executableTable, executableVerdicts) = ExecutablePremiumBenchmark.run(iterations: evalIterations)
    print(executableTable)
    verdicts += executableVerdicts

    print("\nAllocations per depth message (book messages through StreamIntake into EngineCore, one basis: depth rule)")
    let (depthAllocationTable, depthAllocationVerdicts) = DepthFrameAllocationBenchmark.run(markets: markets)
    print(depthAllocationTable)
    verdicts += depthAllocationVerdicts
}
