import Foundation
import MarketAlertCore
import MarketAlertIO
import Testing

/// `marketalertd history`'s chart and day table, and the status page's sparkline.
@Suite struct HistoryChartTests {
    static let t0 = Date(timeIntervalSince1970: 1_795_391_880)  // 2026-11-22 23:58 UTC

    static let rule = PremiumRule(
        name: "kimchi", assets: ["BTC"], exchanges: ["upbit", "binance"], quotes: ["KRW", "USDT"],
        levels: [AlertLevel(pct: 3, severity: .warning), AlertLevel(pct: 5, severity: .critical)], clearPct: 2.5)

    static func samples() -> [HistorySample] {
        (0..<120).map { i in
            let pct = 2 + Double(i % 30) * 0.1
            return HistorySample(rule: "kimchi", asset: "BTC", at: t0 + Double(i) * 60, minPct: pct - 0.2, maxPct: pct + 0.1, lastPct: pct)
        }
    }

    @Test func thePlotIsWellFormedSVGWithEveryLevelAndTheClearLevelLabelled() throws {
        let svg = HistoryChart.plot(
            Self.samples(), rule: Self.rule, asset: "BTC", since: Self.t0, until: Self.t0 + 7200, timeZone: TimeZone(identifier: "Asia/Seoul") ?? .gmt)
        let document = try SVGDocument(svg)
        #expect(document.elements.first == "svg")
        let levels = document.all("line", class: "level")
        #expect(levels.compactMap { $0["data-pct"] } == ["3", "5"])
        #expect(document.all("line", class: "clear").compactMap { $0["data-pct"] } == ["2.5"])
        // Higher levels are drawn higher (smaller y), the clear level lowest.
        let ys = (levels + document.all("line", class: "clear")).compactMap { $0["y1"].flatMap(Double.init) }
        #expect(ys.count == 3 && ys[1] < ys[0] && ys[0] < ys[2])
        #expect(document.texts.contains("warning 3%") && document.texts.contains("critical 5%") && document.texts.contains("clear 2.5%"))
        let line = try #require(document.all("polyline", class: "last").first?["points"])
        #expect(line.split(separator: " ").count == 120)
        #expect(document.texts.contains { $0.contains("23 Nov 08:58") }, "axis times in the display zone")
    }

    @Test func anEmptyHistoryStillPlotsTheLevels() throws {
        let document = try SVGDocument(HistoryChart.plot([], rule: Self.rule, asset: "BTC", since: Self.t0, until: Self.t0 + 60, timeZone: .gmt))
        #expect(document.all("line", class: "level").count == 2)
        #expect(document.all("polyline", class: "last").isEmpty)
    }

    @Test func daysAreCutInEachDisplayZone() {
        let samples = Self.samples()  // 23:58 UTC on the 22nd for two hours
        let utc = HistoryReport.days(samples, zone: .gmt)
        #expect(utc.map(\.day) == ["2026-11-22", "2026-11-23"])
        #expect(utc.map(\.samples) == [2, 118])
        let seoul = HistoryReport.days(samples, zone: TimeZone(identifier: "Asia/Seoul") ?? .gmt)
        #expect(seoul.map(\.day) == ["2026-11-23"])
        #expect(abs((seoul.first?.maxPct ?? 0) - 5) < 1e-9 && abs((seoul.first?.minPct ?? 0) - 1.8) < 1e-9)
        #expect(abs((seoul.first?.lastPct ?? 0) - (2 + Double(119 % 30) * 0.1)) < 1e-9)
        let text = HistoryReport.text(samples, rule: "kimchi", asset: "BTC", since: Self.t0, until: Self.t0 + 7200, zones: ["UTC", "Asia/Seoul"])
        #expect(text.contains("Day (UTC)") && text.contains("Day (Asia/Seoul)") && text.contains("2026-11-22") && text.contains("5.000"))
    }

    @Test func theSparklineIsOneWellFormedSVGWithGapsWhereNoSampleExists() throws {
        let buckets = [HistoryBucket(index: 0, minPct: 1, maxPct: 2), HistoryBucket(index: 1, minPct: 1, maxPct: 3), HistoryBucket(index: 5, minPct: 0.5, maxPct: 1)]
        let svg = HistoryChart.sparkline(buckets, count: 96)
        let document = try SVGDocument(svg)
        let path = try #require(zip(document.elements, document.attributes).first { $0.0 == "path" }?.1["d"])
        #expect(path.filter { $0 == "M" }.count == 1 && path.filter { $0 == "L" }.count == 1)  // buckets 0 and 1
        #expect(document.elements.filter { $0 == "circle" }.count == 1)  // bucket 5 alone: a dot
        #expect(document.texts.joined().contains("min 0.5%, max 3%"))
        #expect(HistoryChart.sparkline([], count: 96).isEmpty)
    }
}

/// `marketalertd history` end to end below the argument parser: a real SQLite file in `state_dir`, opened
/// read-only beside the writer, the day tables, the chart file, and the errors naming the rule or asset.
@Suite struct HistoryCommandTests {
    /// Writes `HistoryChartTests.samples()` to a SQLite store in `dir`; returns a "now" two hours after them.
    static func storeSamples(in dir: String) async throws -> Date {
        let writer = try SQLiteStore(directory: dir)
        var publication = Publication()
        publication.history = HistoryChartTests.samples()
        try await writer.commit(publication, at: HistoryChartTests.t0)
        return HistoryChartTests.t0 + 7200
    }

    @Test func theCommandReadsTheStoreAndWritesThePlot() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("history-cli-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var settings = try ConfigLoader.parse(yaml: """
            state_dir: \(dir)
            display_time_zones: [UTC, Asia/Seoul]
            exchanges: { upbit: {}, binance: {} }
            fx: { providers: [{ name: dunamu }] }
            premium:
              rules:
                - { name: kimchi, assets: [BTC], exchanges: [upbit, binance], quotes: [KRW, USDT], levels: [{ pct: 3, severity: warning }, { pct: 5, severity: critical }], clear_pct: 2.5 }
            history: { resolution: 1m }
            """).settings
        let now = try await Self.storeSamples(in: dir)
        let plot = dir + "/chart.svg"
        let report = try await HistoryReport.run(
            settings: settings, rule: "kimchi", asset: "btc", since: .seconds(86_400), plot: plot, now: now, environment: [:])
        #expect(report.hasPrefix("premium/kimchi/BTC: 120 samples"), "\(report)")
        #expect(report.contains("Day (UTC)") && report.contains("Day (Asia/Seoul)") && report.contains("chart written to \(plot)"))
        let svg = try SVGDocument(String(contentsOfFile: plot, encoding: .utf8))
        #expect(svg.all("line", class: "level").compactMap { $0["data-pct"] } == ["3", "5"])
        await #expect(throws: HistoryReport.Problem.self) {
            try await HistoryReport.run(settings: settings, rule: "kimchi", asset: "DOGE", since: .seconds(60), plot: nil, now: now, environment: [:])
        }
        settings.stateDirectory = dir + "/nowhere"
        await #expect(throws: HistoryReport.Problem.self) {
            try await HistoryReport.run(settings: settings, rule: "kimchi", asset: "BTC", since: .seconds(60), plot: nil, now: now, environment: [:])
        }
    }

    /// An `assets: all` rule's assets come from the exchanges' lists, which the command does not read: any asset
    /// the rule does not exclude is asked of the store.
    @Test func anAssetsAllRuleReportsAnyAssetItDoesNotExclude() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("history-cli-all-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let settings = try ConfigLoader.parse(yaml: """
            state_dir: \(dir)
            exchanges: { upbit: {}, binance: {} }
            fx: { providers: [{ name: dunamu }] }
            premium:
              rules:
                - { name: kimchi, assets: all, exclude_assets: [DOGE], exchanges: [upbit, binance], quotes: [KRW, USDT], levels: [{ pct: 3, severity: warning }], clear_pct: 2.5 }
            history: { resolution: 1m }
            """).settings
        let now = try await Self.storeSamples(in: dir)
        let report = try await HistoryReport.run(
            settings: settings, rule: "kimchi", asset: "BTC", since: .seconds(86_400), plot: nil, now: now, environment: [:])
        #expect(report.hasPrefix("premium/kimchi/BTC: 120 samples"), "\(report)")
        let none = try await HistoryReport.run(
            settings: settings, rule: "kimchi", asset: "SOL", since: .seconds(86_400), plot: nil, now: now, environment: [:])
        #expect(none.contains("(no history in this period)"), "\(none)")
        await #expect(throws: HistoryReport.Problem.self) {
            try await HistoryReport.run(settings: settings, rule: "kimchi", asset: "DOGE", since: .seconds(60), plot: nil, now: now, environment: [:])
        }
    }
}
