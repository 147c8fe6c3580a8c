import FoundationXML
import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// History, context and digest through the whole runtime in virtual time, with a real SQLite file: samples
/// reach the store through the one publish path, a firing carries its context, the 09:00 Seoul digest goes
/// out once per day across a restart and a reload, every event is valid against the v2 schema, and the API
/// and status page serve the history over real HTTP.
@Suite(.serialized) struct HistoryRuntimeTests {
    /// 2026-11-22 23:59:40 UTC = 2026-11-23 08:59:40 in Seoul.
    static let start = Date(timeIntervalSince1970: 1_795_391_980)

    static func settings(digestAt: String = "09:00") throws -> Settings {
        try ConfigLoader.parse(yaml: """
            display_time_zones: [Asia/Seoul]
            exchanges:
              binance: { poll_interval: 5s }
              bybit: { poll_interval: 5s }
            premium:
              max_quote_age: 30s
              rules:
                - name: global
                  assets: [BTC]
                  exchanges: [binance, bybit]
                  quotes: [USDT]
                  levels:
                    - { pct: 0.05, severity: notice }
                    - { pct: 0.1, severity: warning }
                  clear_pct: 0.04
                  context_window: 1h
            history:
              resolution: 1s
              retention: 1d
            digest:
              at: "\(digestAt)"
              time_zone: Asia/Seoul
            """).settings
    }

    struct World {
        let binance: ScriptedQuoteSource
        let bybit: ScriptedQuoteSource
        let harness: RuntimeHarness

        init(settings: Settings, store: SQLiteStore, at start: Date, bybitBTC: String = "100020") async throws {
            let clock = ManualClock(now: start)
            binance = ScriptedQuoteSource(.binance, clock: clock)
            bybit = ScriptedQuoteSource(.bybit, clock: clock)
            binance.set("BTC", "100000")
            bybit.set("BTC", bybitBTC)
            harness = try await RuntimeHarness.start(
                settings: settings, store: store, factory: scriptedFactory([binance, bybit]), clock: clock)
        }
    }

    @Test func samplesContextAndOneDigestPerDayAcrossARestartAndAReload() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("history-rt-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let settings = try Self.settings()
        let first = try await World(settings: settings, store: try SQLiteStore(directory: dir), at: Self.start)
        try await first.harness.advance(12)  // 0.02% polled every 5 s, one sample a second
        first.bybit.set("BTC", "100120")  // 0.12% from the poll at +15: a warning, the highest of the hour
        try await first.harness.advance(13)  // to 09:00:05 Seoul: the digest falls due at +20
        await first.harness.stop()
        let events = first.harness.sink.events
        let firing = try #require(events.first { $0.kind == .premium })
        let context = try #require(firing.premium?.context, "\(firing.summary)")
        #expect(context.percentile == 100 && context.window == "1h" && context.samples >= 10)
        #expect(firing.summary.contains("is the highest of the last hour"), "\(firing.summary)")
        let digests = events.filter { $0.kind == .digest }
        #expect(digests.map(\.key) == ["digest/2026-11-23"])
        let row = try #require(digests.first?.digest?.premium.first)
        #expect(abs(row.minPct - 0.02) < 1e-9 && abs(row.maxPct - 0.12) < 1e-9 && row.notifications == 1)
        #expect(try await SchemaValidator.validateAlertEvents(events.map { try $0.jsonLine() }) == [])
        let store = try SQLiteStore(directory: dir)
        let stored = try await store.samples(rule: "global", asset: "BTC", since: Self.start, until: Self.start + 60)
        #expect(stored.count >= 20, "\(stored.count) samples")
        #expect(stored.contains { abs($0.maxPct - 0.12) < 1e-9 && $0.notifications == 1 })

        // A restart the same morning sends no second digest, and the context is warmed from the store.
        let second = try await World(settings: settings, store: store, at: Self.start + 60, bybitBTC: "100020")
        try await second.harness.advance(10)
        #expect(second.harness.sink.events.filter { $0.kind == .digest }.isEmpty)
        // A reload moving the digest to 09:02 the same day sends none either.
        try await second.harness.reload(try Self.settings(digestAt: "09:02"))
        try await second.harness.advance(90)
        #expect(second.harness.sink.events.filter { $0.kind == .digest }.isEmpty, "\(second.harness.sink.events.map(\.key))")
        second.bybit.set("BTC", "100070")  // 0.07%: notice, below the morning's maximum
        try await second.harness.advance(6)
        await second.harness.stop()
        let notice = try #require(second.harness.sink.events.first { $0.kind == .premium && $0.status == "firing" })
        let warmed = try #require(notice.premium?.context)
        #expect(warmed.maxPct == 0.12, "the first run's maximum came back from the store")
        #expect(warmed.percentile < 100)
    }

    @Test func theAPIServesHistoryAndThePageDrawsSparklines() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("history-api-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try SQLiteStore(directory: dir)
        let clock = ManualClock(now: Self.start)
        let binance = ScriptedQuoteSource(.binance, clock: clock)
        let bybit = ScriptedQuoteSource(.bybit, clock: clock)
        binance.set("BTC", "100000")
        bybit.set("BTC", "100030")
        let liveness = EngineLiveness(stuckAfter: .seconds(30))
        let metrics = DaemonMetrics(webhookQueue: store)
        let harness = try await RuntimeHarness.start(
            settings: try Self.settings(), store: store, factory: scriptedFactory([binance, bybit]), clock: clock,
            prepare: { await APITestServer.prepare($0, liveness: liveness, metrics: metrics, silences: store) })
        let api = try await APITestServer(runtime: harness.runtime, clock: clock, liveness: liveness, metrics: metrics, history: store)
        try await harness.advance(5)
        bybit.set("BTC", "100040")  // polled at +10; its slot closes at +11
        try await harness.advance(6)
        let since = Timestamp.rfc3339(Self.start)
        let answer = try await api.get("/api/v1/history?rule=global&asset=BTC&since=\(since)")
        #expect(answer.status == 200, "\(answer.text)")
        #expect(answer.json["rule"] as? String == "global" && answer.json["resolution"] as? String == "1s")
        let samples = try #require(answer.json["samples"] as? [[String: Any]])
        #expect(samples.count >= 8)
        #expect(samples.first?["at"] as? String == since)
        #expect(samples.first?["max_pct"] as? Double == 0.03)
        #expect(samples.last?["last_pct"] as? Double == 0.04)
        #expect(Set(samples.first?.keys.map { $0 } ?? []) == ["at", "min_pct", "max_pct", "last_pct"])
        let bad = try await api.get("/api/v1/history?rule=global&asset=BTC&since=yesterday")
        #expect(bad.status == 400 && bad.json["field"] as? String == "since")
        #expect(try await api.get("/api/v1/history?asset=BTC").json["field"] as? String == "rule")
        let unknown = try await api.get("/api/v1/history?rule=global&asset=DOGE")
        #expect(unknown.status == 404 && unknown.json["field"] as? String == "asset")
        #expect(try await api.get("/api/v1/history?rule=nope&asset=BTC").status == 404)
        let page = try await api.get("/")
        #expect(page.status == 200)
        let cell = try #require(page.text.range(of: #"<td data-label="Last 24 h" class="spark">"#), "no sparkline in the page")
        let rest = page.text[cell.upperBound...]
        let end = try #require(rest.range(of: "</svg>"))
        #expect(rest.hasPrefix("<svg"))
        let parsed = try SVGDocument(String(rest[..<end.upperBound]))
        #expect(parsed.elements.contains("circle"))  // seconds of history: one 15-minute bucket, drawn as a dot
        await api.stop()
        await harness.stop()
    }
}

/// The elements of an SVG document and their attributes, through Foundation's XML parser (a malformed
/// document throws).
final class SVGDocument: NSObject, XMLParserDelegate {
    private(set) var elements: [String] = []
    private(set) var attributes: [[String: String]] = []
    private(set) var texts: [String] = []

    init(_ text: String) throws {
        super.init()
        let parser = XMLParser(data: Data(text.utf8))
        parser.delegate = self
        guard parser.parse() else { throw parser.parserError ?? CocoaError(.coderReadCorrupt) }
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String]) {
        elements.append(name)
        self.attributes.append(attributes)
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { texts.append(string) }

    /// Attributes of every element named `name` whose `class` is `cls`.
    func all(_ name: String, class cls: String) -> [[String: String]] {
        zip(elements, attributes).filter { $0.0 == name && $0.1["class"] == cls }.map(\.1)
    }
}
