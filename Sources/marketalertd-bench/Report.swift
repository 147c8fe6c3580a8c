import Foundation
import MarketAlertCore
import MarketAlertIO

/// One budget's outcome, printed as `PASS decode binance 3000 symbols: median 3.1 ms (budget 10 ms)`.
struct Verdict {
    var pass: Bool
    var text: String

    var line: String { (pass ? "PASS " : "FAIL ") + text }
}

enum Report {
    static let decodeBudget = 0.010
    static let evaluationBudget = 50e-6
    /// Steady resident memory of the running daemon (median of the run's second half): 25 MB as 25,000,000
    /// bytes (the stricter reading), and its peak (VmHWM, start-up included): 32 MB.
    static let rssBudget = 25_000_000
    static let peakRSSBudget = 32_000_000
    /// CPU of the daemon polling 8 exchanges × 50 assets every second, share of one core over the second half.
    static let pollCPUBudget = 1.0

    /// `; the host meanwhile: N ticks of steal, load average L at the end`, or nothing.
    static func host(_ r: DaemonRSSBenchmark.Result) -> String {
        r.host.map { String(format: "; the host meanwhile: %d ticks of steal, load average %.2f at the end", $0.stealTicks, $0.loadAverage) } ?? ""
    }

    static func ms(_ seconds: Double) -> String { String(format: "%.2f ms", seconds * 1000) }
    static func us(_ seconds: Double) -> String { String(format: "%.1f µs", seconds * 1e6) }

    /// Where the figures come from: build, cores, load (the machine is shared, so load matters).
    static func header() -> String {
        #if DEBUG
        let build = "DEBUG build: these figures are not comparable to the budgets; use -c release"
        #else
        let build = "release build"
        #endif
        let load = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
        return "marketalertd-bench: \(build), \(ProcessInfo.processInfo.activeProcessorCount) cores, load average \(load)"
    }

    static func table(_ rows: [[String]]) -> String {
        guard let first = rows.first else { return "" }
        var widths = first.map(\.count)
        for row in rows { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) } }
        return rows.enumerated().map { position, row in
            let line = row.enumerated().map { index, cell in
                index == 0 ? cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[index] - cell.count) + cell
            }.joined(separator: "  ")
            return position == 0 ? line + "\n" + String(repeating: "-", count: line.count) : line
        }.joined(separator: "\n")
    }

    static func decode(_ results: [DecodeBenchmark.Result]) -> (String, Verdict?) {
        var rows = [["payload", "rows", "bytes", "runs", "min", "median", "p90", "max"]]
        for r in results {
            rows.append([r.name, "\(r.rows)", "\(r.bytes)", "\(r.samples.count)", ms(r.samples.min), ms(r.samples.median), ms(r.samples.p90), ms(r.samples.max)])
        }
        let verdict = results.first.map { binance in
            Verdict(pass: binance.samples.median < decodeBudget,
                    text: "decode binance \(binance.rows) symbols: median \(ms(binance.samples.median)), p90 \(ms(binance.samples.p90)) (budget \(ms(decodeBudget)))")
        }
        return (table(rows), verdict)
    }

    static func evaluation(_ r: EvaluationBenchmark.Result) -> (String, Verdict) {
        let rows = [
            ["evaluation", "keys", "firing", "runs", "min", "median", "p90", "max"],
            ["\(r.rules) rules, 8 exchanges × 50 assets", "\(r.keys)", "\(r.firingKeys)", "\(r.samples.count)",
             us(r.samples.min), us(r.samples.median), us(r.samples.p90), us(r.samples.max)],
        ]
        let verdict = Verdict(pass: r.samples.median < evaluationBudget,
                              text: "evaluate \(r.rules) rules × 50 assets over 8 exchanges: median \(us(r.samples.median)), p90 \(us(r.samples.p90)) (budget \(us(evaluationBudget)))")
        return (table(rows), verdict)
    }

    static func incremental(_ samples: Samples) -> (String, Verdict) {
        let rows = [
            ["incremental", "runs", "min", "median", "p90", "max"],
            ["one quote, one exchange, one asset", "\(samples.count)", us(samples.min), us(samples.median), us(samples.p90), us(samples.max)],
        ]
        let verdict = Verdict(
            pass: samples.median < incrementalBudget,
            text: "one stream quote through the engine: median \(us(samples.median)), p90 \(us(samples.p90)) (budget \(us(incrementalBudget)))")
        return (table(rows), verdict)
    }

    static let incrementalBudget = 5e-6

    static func latency(_ r: TickToNotificationBenchmark.Result) -> (String, Verdict) {
        let s = r.samples
        let rows = [
            ["frame → notification", "notifications", "min", "median", "p90", "p99", "max"],
            ["Binance bookTicker, fire / resolve", "\(r.notifications)", us(s.min), us(s.median), us(s.p90), us(s.percentile(99)), us(s.max)],
        ]
        let verdict = Verdict(
            pass: s.count > 0 && s.percentile(99) < latencyBudget,
            text: "stream frame received → notification written (in process): p99 \(us(s.percentile(99))), median \(us(s.median)) (budget p99 \(us(latencyBudget)))")
        return (table(rows), verdict)
    }

    static let latencyBudget = 1e-3

    /// Idle: after the first fetches nothing comes in; whatever CPU the daemon spends is its own wakeups.
    static func idle(_ r: DaemonRSSBenchmark.Result, seconds: Int) -> (String, [Verdict]) {
        let line = String(format: "idle CPU (HTTP server listening, unasked) over the last %.0f s: %.3f s (%.3f%% of a core); steady VmRSS %@",
                          r.steadyCPU.over, r.steadyCPU.seconds, r.cpuPercent, ByteText.mb(r.steadyRSS))
        return (line, [
            Verdict(pass: r.stayedAlive && r.exitedCleanly, text: "idle daemon ran \(r.samples.count) of \(seconds) s; SIGTERM: \(r.exitStatus)"),
            Verdict(pass: r.cpuPercent < idleCPUBudget, text: String(format: "idle CPU %.3f%% of a core (budget %.1f%%)", r.cpuPercent, idleCPUBudget)),
        ])
    }

    static let idleCPUBudget = 0.1

    /// Streaming: 8 exchanges × 50 assets on local WebSocket servers at `rate` frames a second each.
    static func streams(
        _ r: DaemonRSSBenchmark.Result, seconds: Int, rate: Int, pushed: [ExchangeID: Int], assets: Int = BenchMarkets.assetCount,
        drops: Int = 0
    ) -> (String, [Verdict]) {
        // The whole-market run (more than 50 assets per exchange) has the whole-market issue's budgets.
        let wholeMarket = assets > BenchMarkets.assetCount
        let cpuBudget = wholeMarket ? wholeMarketCPUBudget : streamCPUBudget
        let steadyBudget = wholeMarket ? wholeMarketRSSBudget : rssBudget
        let peakBudget = wholeMarket ? wholeMarketRSSBudget : peakRSSBudget
        var lines: [String] = []
        let total = pushed.values.reduce(0, +)
        if drops > 0 { lines.append("every connection dropped by the feeder \(drops) times (the daemon reconnected each time)") }
        lines.append("frames pushed: \(total) (\(pushed.sorted { $0.key < $1.key }.map { "\($0.key.rawValue) \($0.value)" }.joined(separator: ", ")))")
        lines.append(String(format: "CPU over the last %.0f s: %.2f s (%.2f%% of a core)", r.steadyCPU.over, r.steadyCPU.seconds, r.cpuPercent) + host(r))
        let start = r.samples.first?.rss ?? 0
        let end = r.samples.last?.rss ?? 0
        // Flat: the end against the first quarter's end (after start-up and the first polls).
        let settled = r.samples.isEmpty ? 0 : r.samples[r.samples.count / 4].rss
        lines.append("VmRSS start \(ByteText.mb(start)), at 1/4 \(ByteText.mb(settled)), end \(ByteText.mb(end)), steady (median of last half) "
            + "\(ByteText.mb(r.steadyRSS)), peak VmHWM \(ByteText.mb(r.peakRSS))"
            + (r.samples.last.map { "; at the end RssAnon \(ByteText.mb($0.rssAnon)), RssFile \(ByteText.mb($0.rssFile)), threads \($0.threads)" } ?? ""))
        lines.append("alerts on stdout: \(r.premiumEvents.count) premium, \(r.sourceEvents.count) source; daemon \(r.exitStatus)")
        for event in r.sourceEvents.prefix(10) { lines.append("  source alert: \(event)") }
        let sides = r.streamSides?.sides ?? [:]
        let transports = r.streamSides?.transports ?? [:]
        lines.append("at the end (/api/v1/status\(r.streamSides == nil ? ": unavailable" : "")): premium sides on a quote newer than the feeder's start + 1 s: "
            + pushed.keys.sorted().map { "\($0.rawValue) \(sides[$0.rawValue] ?? 0)" }.joined(separator: ", ")
            + "; transports: " + pushed.keys.sorted().map { "\($0.rawValue) \(transports[$0.rawValue] ?? "?")" }.joined(separator: ", "))
        let silent = pushed.keys.filter { transports[$0.rawValue] != "stream" || (sides[$0.rawValue] ?? 0) == 0 }.map(\.rawValue).sorted()
        // Flat is judged on the anonymous memory, where a leak grows: the file-backed rest is the binary's pages,
        // which the daemon gives back 15 s after start (`StartupPageRelease`) and which fault back in over the
        // next seconds, inside the first quarter's end of a 90 s run.
        let settledAnon = r.samples.isEmpty ? 0 : r.samples[r.samples.count / 4].rssAnon
        let endAnon = r.samples.last?.rssAnon ?? 0
        let growth = endAnon - settledAnon
        return (lines.joined(separator: "\n"), [
            Verdict(pass: r.streamSides != nil && silent.isEmpty,
                    text: "every exchange on its stream, its frames in the premium table"
                        + (silent.isEmpty ? "" : "; short: \(silent.joined(separator: ", "))")),
            Verdict(pass: r.stayedAlive && r.samples.count == seconds && r.exitedCleanly,
                    text: "streaming daemon ran \(r.samples.count) of \(seconds) s at \(rate) frames/s per exchange; SIGTERM: \(r.exitStatus)"),
            Verdict(pass: r.sourceEvents.isEmpty, text: "no source alerts while streaming (\(r.sourceEvents.count))"),
            Verdict(pass: r.cpuPercent <= cpuBudget,
                    text: String(format: "streaming daemon (%d assets) CPU %.2f%% of a core (budget %.1f%%)", assets, r.cpuPercent, cpuBudget) + host(r)),
            Verdict(pass: r.steadyRSS <= steadyBudget, text: "streaming daemon steady VmRSS \(ByteText.mb(r.steadyRSS)) (budget \(ByteText.mb(steadyBudget)))"),
            Verdict(pass: r.peakRSS <= peakBudget, text: "streaming daemon peak VmHWM \(ByteText.mb(r.peakRSS)) (budget \(ByteText.mb(peakBudget)))"),
            Verdict(pass: growth <= streamRSSGrowthBudget,
                    text: "streaming daemon anonymous memory flat: RssAnon \(ByteText.mb(settledAnon)) at 1/4 → \(ByteText.mb(endAnon)) at the end "
                        + "(budget +\(ByteText.mb(streamRSSGrowthBudget)); VmRSS \(ByteText.mb(settled)) → \(ByteText.mb(end)))"),
        ])
    }

    static let streamCPUBudget = 1.5
    /// 8 exchanges × 300 assets streaming (the whole-market issue): 3% of a core, 45 MB (45,000,000 bytes).
    static let wholeMarketCPUBudget = 3.0
    static let wholeMarketRSSBudget = 45_000_000
    /// "Flat": at most 1 MB more anonymous memory at the end than after the first quarter of the run.
    static let streamRSSGrowthBudget = 1_000_000

    static let scrapeBudget = 0.002

    static func scrape(_ r: MetricsScrapeBenchmark.Result) -> (String, Verdict) {
        let rows = [
            ["scrape", "series", "bytes", "runs", "min", "median", "p90", "max"],
            ["8 exchanges × 50 assets, 2 rules, 1 webhook", "\(r.series)", "\(r.bytes)", "\(r.samples.count)",
             us(r.samples.min), us(r.samples.median), us(r.samples.p90), us(r.samples.max)],
        ]
        let verdict = Verdict(pass: r.samples.median < scrapeBudget,
                              text: "/metrics scrape, 8 exchanges × 50 assets: median \(us(r.samples.median)), p90 \(us(r.samples.p90)) (budget \(ms(scrapeBudget)))")
        return (table(rows), verdict)
    }

    /// - Parameter exchanges: the exchanges the daemon was given (every registry exchange by default).
    static func rss(_ r: DaemonRSSBenchmark.Result, seconds: Int, exchanges: [String] = ExchangeNames.all) -> (String, [Verdict]) {
        var lines: [String] = []
        var rows = [["source", "requests", "polls"]]
        for name in exchanges + ["dunamu"] {
            let t = r.traffic[name] ?? (0, 0)
            rows.append([name, "\(t.requests)", "\(t.polls)"])
        }
        lines.append(table(rows))
        lines.append(String(format: "CPU over the last %.0f s: %.2f s (%.2f%% of a core)", r.steadyCPU.over, r.steadyCPU.seconds, r.cpuPercent) + host(r))
        if let last = r.samples.last {
            lines.append("samples \(r.samples.count); steady VmRSS (median of last half) \(ByteText.mb(r.steadyRSS)); peak VmHWM \(ByteText.mb(r.peakRSS)); "
                + "at the end RssAnon \(ByteText.mb(last.rssAnon)), RssFile \(ByteText.mb(last.rssFile)), threads \(last.threads)")
        }
        lines.append("alerts on stdout: \(r.premiumEvents.count) premium (\(r.premiumEvents.prefix(6).joined(separator: "; "))), "
            + "\(r.sourceEvents.count) source; daemon \(r.exitStatus)")
        for event in r.sourceEvents.prefix(10) { lines.append("  source alert: \(event)") }

        var verdicts: [Verdict] = []
        verdicts.append(Verdict(pass: r.stayedAlive && r.samples.count == seconds, text: "daemon ran \(r.samples.count) of \(seconds) s"))
        // Coinbase asks once per product, paced at 7 requests a second (its public limit is 10): a poll of
        // 50 products takes about 7 s, so it is held to the pace, not to one poll a second.
        let slow = exchanges.filter { name in
            name == "coinbase" ? (r.traffic[name]?.requests ?? 0) < seconds * 7 / 2 : (r.traffic[name]?.polls ?? 0) < seconds / 2
        }
        verdicts.append(Verdict(
            pass: slow.isEmpty && (r.traffic["dunamu"]?.polls ?? 0) >= 1,
            text: "polls: every exchange at least \(seconds / 2) in \(seconds) s at poll_interval 1s (coinbase: \(seconds * 7 / 2) requests)"
                + (slow.isEmpty ? "" : " (too few: \(slow.joined(separator: ", ")))") + ", dunamu \(r.traffic["dunamu"]?.polls ?? 0)"))
        verdicts.append(Verdict(pass: r.sourceEvents.isEmpty, text: "no source failures alerted (\(r.sourceEvents.count))"))
        verdicts.append(Verdict(pass: r.exitedCleanly, text: "SIGTERM: \(r.exitStatus)"))
        verdicts.append(Verdict(
            pass: r.samples.count == seconds && r.steadyRSS <= rssBudget,
            text: "daemon steady RSS with \(exchanges.count) exchanges × 50 assets at 1 s: \(ByteText.mb(r.steadyRSS)) (budget \(ByteText.mb(rssBudget)))"))
        verdicts.append(Verdict(
            pass: r.samples.count == seconds && r.peakRSS <= peakRSSBudget,
            text: "daemon peak RSS (VmHWM, start-up included): \(ByteText.mb(r.peakRSS)) (budget \(ByteText.mb(peakRSSBudget)))"))
        verdicts.append(Verdict(
            pass: r.steadyCPU.over > 0 && r.cpuPercent <= pollCPUBudget,
            text: String(format: "daemon CPU polling %d exchanges × 50 assets at 1 s: %.2f%% of a core (budget %.1f%%)", exchanges.count, r.cpuPercent, pollCPUBudget) + host(r)))
        if verdicts.contains(where: { !$0.pass }) {
            lines.append("daemon stderr (last lines):")
            lines += r.stderrTail.map { "  " + $0 }
        }
        return (lines.joined(separator: "\n"), verdicts)
    }
}

enum ExchangeNames {
    /// The registry's exchanges, in its order.
    static let all = ExchangeRegistry.standard.listed.map(\.id.rawValue)
}
