import Foundation
import MarketAlertCore
import MarketAlertIO

/// The depth-streaming run's figures and verdicts (issue #27: 8 exchanges × 50 assets at 10 messages/s per
/// market: CPU ≤ 5% of a core, RSS ≤ 50 MB and flat over 10 minutes, frame → notification p99 ≤ 2 ms).
enum DepthStreamReport {
    static let cpuBudget = 5.0
    static let rssBudget = 50_000_000
    static let growthBudget = 1_000_000
    static let latencyBudget = 2e-3

    static func report(_ r: DepthStreamBenchmark.Result, feeds: DepthFeeds, seconds: Int) -> (String, [Verdict]) {
        let d = r.daemon
        let pushed = feeds.pushedCounts
        let exchanges = feeds.streams.feeds.map(\.exchange.rawValue)
        let assets = feeds.bench.assets.count
        var lines: [String] = []
        lines.append("messages pushed: \(pushed.values.reduce(0, +)) (" + feeds.streams.feeds.map { "\($0.exchange.rawValue) \(pushed[$0.exchange] ?? 0)" }.joined(separator: ", ")
            + "); Coinbase's are ticker frames, its books REST-polled: \(r.coinbaseBooks) book requests; Binance snapshots fetched: \(r.binanceSnapshots)")
        lines.append(String(format: "CPU over the last %.0f s: %.2f s (%.2f%% of a core)", d.steadyCPU.over, d.steadyCPU.seconds, d.cpuPercent) + Report.host(d))
        let start = d.samples.first?.rss ?? 0
        let end = d.samples.last?.rss ?? 0
        let settled = d.samples.isEmpty ? 0 : d.samples[d.samples.count / 4].rss
        lines.append("VmRSS start \(ByteText.mb(start)), at 1/4 \(ByteText.mb(settled)), end \(ByteText.mb(end)), steady (median of last half) "
            + "\(ByteText.mb(d.steadyRSS)), peak VmHWM \(ByteText.mb(d.peakRSS))"
            + (d.samples.last.map { "; threads \($0.threads)" } ?? ""))
        let samples = Samples(r.latencies)
        lines.append(String(format: "frame → notification (%@ %@): %d flips, %d answered; median %.3f ms, p90 %.3f ms, p99 %.3f ms, max %.3f ms",
            feeds.latencyExchange.rawValue, feeds.latencyAsset, r.flips, r.latencies.count, samples.median * 1000, samples.p90 * 1000,
            samples.percentile(99) * 1000, samples.max * 1000))
        lines.append("/metrics at the end\(r.metricsRead ? "" : ": unavailable"): books with levels on both sides: "
            + exchanges.map { "\($0) \(r.booksWithLevels[$0] ?? 0)" }.joined(separator: ", ")
            + "; book resyncs: " + (r.resyncs.isEmpty ? "none" : r.resyncs.sorted { $0.key < $1.key }.map { "\($0.key) \(Int($0.value))" }.joined(separator: ", ")))
        lines.append("alerts on stdout: \(d.premiumEvents.count) premium (\(r.strayAlerts.count) of other assets), \(d.sourceEvents.count) source; daemon \(d.exitStatus)")
        for event in (r.strayAlerts.prefix(5) + d.sourceEvents.prefix(5)) { lines.append("  unexpected alert: \(event)") }
        let unsynced = exchanges.filter { (r.booksWithLevels[$0] ?? 0) < assets }
        if !d.exitedCleanly || !d.stayedAlive || !unsynced.isEmpty { for line in d.stderrTail { lines.append("  stderr: \(line)") } }
        let resyncs = Int(r.resyncs.values.reduce(0, +))
        let growth = end - settled
        let p99 = samples.percentile(99)
        return (lines.joined(separator: "\n"), [
            Verdict(pass: r.metricsRead && unsynced.isEmpty,
                    text: "depth streams: every book synced (\(assets) per exchange)" + (unsynced.isEmpty ? "" : "; short: \(unsynced.joined(separator: ", "))")),
            Verdict(pass: r.metricsRead && resyncs == 0, text: "depth streams: no book resyncs (\(resyncs))"),
            Verdict(pass: d.stayedAlive && d.samples.count == seconds && d.exitedCleanly,
                    text: "depth-streaming daemon ran \(d.samples.count) of \(seconds) s (\(feeds.pattern.rawValue), \(feeds.rate) messages/s per market); SIGTERM: \(d.exitStatus)"),
            Verdict(pass: d.sourceEvents.isEmpty && r.strayAlerts.isEmpty,
                    text: "depth streams: no source alerts (\(d.sourceEvents.count)), no premium alerts but the latency market's (\(r.strayAlerts.count))"),
            Verdict(pass: d.cpuPercent <= cpuBudget,
                    text: String(format: "depth-streaming daemon (%d × %d) CPU %.2f%% of a core (budget %.0f%%)", exchanges.count, assets, d.cpuPercent, cpuBudget) + Report.host(d)),
            Verdict(pass: d.steadyRSS <= rssBudget && d.peakRSS <= rssBudget,
                    text: "depth-streaming daemon VmRSS steady \(ByteText.mb(d.steadyRSS)), peak VmHWM \(ByteText.mb(d.peakRSS)) (budget \(ByteText.mb(rssBudget)))"),
            Verdict(pass: growth <= growthBudget,
                    text: "depth-streaming daemon VmRSS flat: \(ByteText.mb(settled)) at 1/4 → \(ByteText.mb(end)) at the end (budget +\(ByteText.mb(growthBudget)))"),
            Verdict(pass: r.latencies.count >= max(1, r.flips - 1) && p99 <= latencyBudget,
                    text: String(format: "depth frame → notification p99 %.3f ms over %d of %d flips (budget 2 ms)", p99 * 1000, r.latencies.count, r.flips)),
        ])
    }
}

/// Values of the Prometheus text exposition the daemon serves (`/metrics`).
enum PrometheusLines {
    /// `name{labels} value` lines of `name`, summed per the values of `labels` (joined by `|`).
    static func values(_ text: String, _ name: String, by labels: [String]) -> [String: Double] {
        var result: [String: Double] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix(name + "{") {
            guard let close = line.lastIndex(of: "}"), let value = Double(line[line.index(after: close)...].trimmingCharacters(in: .whitespaces)) else { continue }
            let found = self.labels(line[line.index(line.startIndex, offsetBy: name.count + 1)..<close])
            result[labels.map { found[$0] ?? "" }.joined(separator: "|"), default: 0] += value
        }
        return result
    }

    /// Per exchange, the markets whose book holds levels on both sides (`marketalertd_book_levels`).
    static func booksWithLevels(_ text: String) -> [String: Int] {
        let levels = values(text, "marketalertd_book_levels", by: ["exchange", "market", "side"])
        var sides: [String: Int] = [:]
        for (key, value) in levels where value > 0 {
            let parts = key.split(separator: "|", omittingEmptySubsequences: false)
            guard parts.count >= 3 else { continue }
            sides[parts.dropLast().joined(separator: "|"), default: 0] += 1
        }
        var result: [String: Int] = [:]
        for (market, count) in sides where count >= 2 {
            result[String(market.split(separator: "|").first ?? ""), default: 0] += 1
        }
        return result
    }

    private static func labels(_ text: Substring) -> [String: String] {
        var result: [String: String] = [:]
        var rest = text[...]
        while let equals = rest.firstIndex(of: "=") {
            let key = rest[..<equals].trimmingCharacters(in: CharacterSet(charactersIn: ", "))
            let afterQuote = rest.index(equals, offsetBy: 2, limitedBy: rest.endIndex) ?? rest.endIndex
            guard afterQuote <= rest.endIndex, let endQuote = rest[afterQuote...].firstIndex(of: "\"") else { break }
            result[key] = String(rest[afterQuote..<endQuote])
            rest = rest[rest.index(after: endQuote)...]
        }
        return result
    }
}

/// `--depth-streams`: the mock REST server, the depth feeds, the daemon run and its report.
func runDepthStreams(_ options: BenchOptions, markets: BenchMarkets, list: BinanceBulkList, dunamu: FlatJSONTemplate) async throws -> [Verdict] {
    let rate = options.rateGiven ? options.rate : 10
    print("\nDaemon with depth streams: \(options.binary), \(options.seconds) s, \(BenchOptions.roundTwo.count) exchanges × \(markets.assets.count) assets, "
        + "\(rate) messages/s per market, \(options.depthPattern.rawValue)")
    let apis = try await MockExchangeAPIs(markets: markets, list: list, dunamu: dunamu)
    let feeds = try await DepthFeeds(markets: markets, apis: apis, pattern: options.depthPattern, rate: rate)
    let result: DepthStreamBenchmark.Result
    do {
        result = try await DepthStreamBenchmark(binary: options.binary, seconds: options.seconds, apis: apis, feeds: feeds).run()
    } catch {
        await apis.shutdown()
        await feeds.shutdown()
        throw error
    }
    await apis.shutdown()
    await feeds.shutdown()
    let (text, verdicts) = DepthStreamReport.report(result, feeds: feeds, seconds: options.seconds)
    print(text)
    return verdicts
}
