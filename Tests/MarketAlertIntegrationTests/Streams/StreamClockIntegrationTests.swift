import Foundation
import MarketAlertCore
import MarketAlertTestSupport
import Testing

/// Issue #26 item 3 through the built daemon: Bithumb on its stream (a local server speaking Bithumb's
/// protocol, `orderbook` frames whose `timestamp` is in microseconds) against Binance on REST, `basis: mid`
/// so only the orderbook's bid and ask make Bithumb's price. A microsecond time is the quote's own time in the
/// event; a time one hour ahead is replaced by the receive time and counted as `reason="clock"`.
@Suite(.serialized, .enabled(if: DaemonProcess.binaryExists, "needs the built marketalertd binary (swift build)"))
struct StreamClockIntegrationTests {
    static let clockRejections = ["exchange": "bithumb", "reason": "clock"]

    static func config(_ harness: DaemonHarness, stream: URL) -> String {
        let base = harness.apis.baseURL
        return """
            state_dir: \(harness.stateDirectory)
            exchanges:
              bithumb: { poll_interval: 5s, timeout: 2s, base_url: "\(base)", stream_url: "\(stream.absoluteString)", stale_after: 30s }
              binance: { poll_interval: 250ms, timeout: 2s, base_url: "\(base)" }
            fx:
              poll_interval: 500ms
              max_age: 15m
              providers:
                - name: dunamu
                  base_url: "\(base)"
            premium:
              reference: USD
              max_quote_age: 30s
              rules:
                - name: kimchi
                  assets: [BTC]
                  exchanges: [bithumb, binance]
                  quotes: [KRW, USDT]
                  basis: mid
                  levels:
                    - { pct: 3.0, severity: warning }
                  clear_pct: 2.5
            sinks:
              stdout: { format: json }
              journal: { enabled: false }
            http:
              listen: "127.0.0.1:0"
            """
    }

    /// A Bithumb `orderbook` frame (`DEFAULT` keys, as `Tests/Fixtures/streams/bithumb`) for KRW-BTC stamped
    /// `micros` microseconds since 1970 (16 digits, as Bithumb sends them).
    static func orderbook(bid: Int, ask: Int, micros: Int64) -> String {
        #"{"type":"orderbook","code":"KRW-BTC","total_ask_size":1.25,"total_bid_size":2.375,"orderbook_units":[{"ask_price":\#(ask),"bid_price":\#(bid),"ask_size":0.5,"bid_size":0.7}],"timestamp":\#(micros),"level":0,"stream_type":"REALTIME"}"#
    }

    static func micros(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970 * 1_000_000) }

    /// Binance at 100,000 USDT and USD/KRW 1,400 (dunamu): 140,000,000 KRW. Bithumb's REST has only a last
    /// price (no mid), so nothing fires before a stream orderbook. Started, the stream live, `/metrics` up.
    static func start(_ harness: DaemonHarness, _ server: WebSocketTestServer) async throws -> (DaemonProcess, DaemonAPI) {
        harness.apis.set("binance", "BTC", "100000.00")
        harness.apis.set("bithumb", "BTC", "140000000")
        harness.apis.setFX { $0.dunamuRate = "1400.00" }
        try harness.writeConfig(Self.config(harness, stream: server.url()))
        let daemon = try harness.start()
        do {
            try await daemon.waitUntilRunning()
            try await daemon.waitForLine("the bithumb stream live", stderr: true) { $0.contains("bithumb stream live") }
            let api = try await DaemonAPI.connect(to: daemon)
            try await daemon.waitUntil("ready") { try await api.get("/readyz").status == 200 }
            return (daemon, api)
        } catch {
            daemon.terminate()
            throw error
        }
    }

    /// A frame stamped 10 s ago in microseconds: the premium event's Bithumb quote carries exactly that time
    /// (read as milliseconds it would be the year 56000, which the clock guard would replace by the receive
    /// time, 10 s later), the guard counts nothing, and every event validates against the schema.
    @Test func aMicrosecondOrderbookTimeIsTheQuoteTime() async throws {
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        let server = try await WebSocketTestServer(persona: StreamPersonas.of(.bithumb)(StreamPersonaKnobs()))
        let (daemon, api) = try await Self.start(harness, server)
        defer { daemon.terminate() }
        #expect(!daemon.events.contains { $0.key == "premium/kimchi/BTC" }, "fired before any orderbook frame")

        // Whole milliseconds, so the event's RFC 3339 time (ms) can equal it exactly.
        let stamp = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 10).rounded(.down))
        let micros = Self.micros(stamp)
        #expect(String(micros).count == 16)
        server.push(Self.orderbook(bid: 147_000_000, ask: 147_100_000, micros: micros))  // 5% above Binance
        let firing = try await daemon.waitForEvent("the kimchi premium from the orderbook", timeout: .seconds(10)) {
            $0.key == "premium/kimchi/BTC" && $0.status == "firing"
        }
        let high = try #require(firing.premium?.high)
        #expect(high.exchange == "bithumb")
        #expect(high.transport == "stream")
        #expect(abs(high.at.timeIntervalSinceNow) < 60, "the quote time \(high.at) is not within a minute of now")
        #expect(abs(high.at.timeIntervalSince(stamp)) < 0.002, "the quote time \(high.at) is not the frame's \(stamp)")
        #expect(try await SchemaValidator.validateAlertEvents(daemon.stdoutLines) == [])
        let metrics = try await api.metrics()
        #expect((metrics.value("marketalertd_quotes_rejected_total", Self.clockRejections) ?? 0) == 0, "a good time was counted as a clock error")

        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(10)) == 0)
        await server.shutdown()
    }

    /// A frame stamped one hour ahead: the event's quote time is the receive time (never an hour ahead),
    /// `quotes_rejected_total{reason="clock"}` counts it, and the event validates.
    @Test func anOrderbookTimeAnHourAheadIsReplacedAndCounted() async throws {
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        let server = try await WebSocketTestServer(persona: StreamPersonas.of(.bithumb)(StreamPersonaKnobs()))
        let (daemon, api) = try await Self.start(harness, server)
        defer { daemon.terminate() }
        let before = try await api.metrics().value("marketalertd_quotes_rejected_total", Self.clockRejections) ?? 0
        #expect(before == 0)

        let ahead = Date().addingTimeInterval(3600)
        let pushed = Date()
        server.push(Self.orderbook(bid: 147_000_000, ask: 147_100_000, micros: Self.micros(ahead)))
        let firing = try await daemon.waitForEvent("the kimchi premium from the orderbook", timeout: .seconds(10)) {
            $0.key == "premium/kimchi/BTC" && $0.status == "firing"
        }
        let high = try #require(firing.premium?.high)
        #expect(high.exchange == "bithumb")
        #expect(high.at.timeIntervalSince(ahead) < -3000, "published with the future time \(high.at)")
        #expect(high.at >= pushed.addingTimeInterval(-1) && high.at <= Date().addingTimeInterval(1), "\(high.at) is not the receive time")
        #expect(try await SchemaValidator.validateAlertEvents(daemon.stdoutLines) == [])
        try await daemon.waitUntil("the clock rejection in /metrics", timeout: .seconds(10)) {
            (try await api.metrics().value("marketalertd_quotes_rejected_total", Self.clockRejections) ?? 0) >= 1
        }
        #expect(try await api.metrics().value("marketalertd_quotes_rejected_total", Self.clockRejections) == 1)

        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(10)) == 0)
        await server.shutdown()
    }
}
