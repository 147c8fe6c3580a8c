import Foundation
import MarketAlertCore
import MarketAlertTestSupport
import Testing

/// The built daemon with Binance on its WebSocket stream (a local server speaking Binance's protocol) and
/// Bybit on REST every 5 s: a premium shorter than one REST interval is seen, and said to come by stream.
@Suite(.serialized, .enabled(if: DaemonProcess.binaryExists, "needs the built marketalertd binary (swift build)"))
struct StreamIntegrationTests {
    /// The global rule's lines after its markets (levels, hysteresis, …), as `config` writes them under it.
    static let warningRule = ["levels:", "  - { pct: 0.05, severity: notice }", "  - { pct: 0.1, severity: warning }", "clear_pct: 0.04"]

    /// binance on a stream at `stream` against bybit by REST, one `global` BTC/USDT rule whose remaining lines are
    /// `rule`; JSON on stdout, the HTTP server on a free port.
    static func config(_ harness: DaemonHarness, stream: URL, rule: [String] = warningRule) -> String {
        let base = harness.apis.baseURL
        return """
            state_dir: \(harness.stateDirectory)
            exchanges:
              binance: { poll_interval: 5s, timeout: 2s, base_url: "\(base)", stream_url: "\(stream.absoluteString)", stale_after: 30s }
              bybit:   { poll_interval: 250ms, timeout: 2s, base_url: "\(base)" }
            premium:
              max_quote_age: 30s
              rules:
                - name: global
                  assets: [BTC]
                  exchanges: [binance, bybit]
                  quotes: [USDT]
                  \(rule.joined(separator: "\n      "))
            sinks:
              stdout: { format: json }
              journal: { enabled: false }
            http:
              listen: "127.0.0.1:0"
            """
    }

    /// A `@ticker` frame stamped now (the event time `E` is the quote's time: an old one would be stale).
    static func ticker(_ last: String) -> String {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        return #"{"e":"24hrTicker","E":\#(now),"s":"BTCUSDT","p":"0","P":"0","w":"0","x":"0","c":"\#(last)","Q":"1","b":"\#(last)","B":"1","a":"\#(last)","A":"1","o":"0","h":"0","l":"0","v":"1","q":"1","O":0,"C":1,"F":0,"L":1,"n":1}"#
    }

    /// A local Binance stream server, both exchanges' REST at 100,000, and the config (`warningRule`) written.
    static func binanceStreamingBesideBybit() async throws -> (MockMarketAPIs, DaemonHarness, WebSocketTestServer) {
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        do {
            let server = try await WebSocketTestServer(persona: StreamPersonas.of(.binance)(StreamPersonaKnobs()))
            apis.set("binance", "BTC", "100000.00")
            apis.set("bybit", "BTC", "100000.00")
            try harness.writeConfig(Self.config(harness, stream: server.url()))
            return (apis, harness, server)
        } catch {
            harness.cleanUp()
            throw error
        }
    }

    /// Starts the daemon and waits until it runs and has sent `server` its subscription; a daemon that gets
    /// no further is terminated before the error is thrown (the caller terminates a running one).
    static func startSubscribed(_ harness: DaemonHarness, to server: WebSocketTestServer) async throws -> DaemonProcess {
        let daemon = try harness.start()
        do {
            try await daemon.waitUntilRunning()
            try await server.waitUntil("the subscription") { $0.connections.contains { !$0.texts.isEmpty } }
            return daemon
        } catch {
            daemon.terminate()
            throw error
        }
    }

    @Test func aSpikeShorterThanOneRESTIntervalAlertsByStreamAndClears() async throws {
        let (apis, harness, server) = try await Self.binanceStreamingBesideBybit()
        defer { harness.cleanUp() }
        let daemon = try await Self.startSubscribed(harness, to: server)
        defer { daemon.terminate() }
        let subscription = try #require(server.connections.first?.texts.first)
        // `basis: last` (the default) reads no best bid/ask: `@bookTicker` is left out (#26 item 15).
        #expect(subscription.contains("btcusdt@ticker") && !subscription.contains("bookTicker"))
        try await daemon.waitForLine("the stream live", stderr: true) { $0.contains("binance stream live") }
        let restPolls = apis.server.requests.filter { $0.path.contains("/api/v3/ticker") }.count

        // A two-second spike on the stream: REST (every 5 s, paused while the stream is live) never sees it.
        let pushed = ContinuousClock.now
        server.push(Self.ticker("100200.00"))
        let firing = try await daemon.waitForEvent("the spike") { $0.key == "premium/global/BTC" && $0.status == "firing" }
        let seenAfter = ContinuousClock.now - pushed
        #expect(firing.premium?.high.exchange == "binance")
        #expect(firing.premium?.high.transport == "stream")
        #expect(firing.premium?.low.transport == "rest")
        #expect(seenAfter < .seconds(2), "seen after \(seenAfter)")
        try await Task.sleep(for: .seconds(1))
        server.push(Self.ticker("100010.00"))
        try await daemon.waitForEvent("the clear") { $0.key == "premium/global/BTC" && $0.status == "resolved" }
        #expect(apis.server.requests.filter { $0.path.contains("/api/v3/ticker") }.count == restPolls, "REST polled while the stream was live")
        #expect(try await SchemaValidator.validateAlertEvents(daemon.stdoutLines) == [])

        // A truncated frame and a zero price: each is one quote dropped and counted by why; nothing fires.
        let api = try await DaemonAPI.connect(to: daemon)
        let received = try await api.metrics()
        #expect((received.value("marketalertd_quotes_received_total", ["exchange": "binance", "transport": "stream"]) ?? 0) >= 2)
        #expect((received.value("marketalertd_quotes_received_total", ["exchange": "bybit", "transport": "rest"]) ?? 0) >= 1)
        let eventsBefore = daemon.events.count
        server.push(#"{"e":"24hrTicker","E":1,"s":"BTCUSDT","c":"1002"#)
        server.push(Self.ticker("0"))
        try await daemon.waitUntil("both drops in /metrics") {
            let metrics = try await api.metrics()
            return (metrics.value("marketalertd_quotes_rejected_total", ["exchange": "binance", "reason": "parse_error"]) ?? 0) >= 1
                && (metrics.value("marketalertd_quotes_rejected_total", ["exchange": "binance", "reason": "invalid_price"]) ?? 0) >= 1
        }
        #expect(daemon.events.count == eventsBefore)
        await api.shutdown()

        // The stream closes abruptly: the daemon reconnects and subscribes again; no source alert.
        server.closeAbruptly()
        try await server.waitUntil("a second connection with its subscription", timeout: .seconds(15)) {
            $0.connections.count >= 2 && !($0.connections.last?.texts.isEmpty ?? true)
        }
        #expect(!daemon.events.contains { $0.kind == .source })
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0)
        await server.shutdown()
    }

    /// `basis: last` streams Binance's `@ticker` alone; a reload to `basis: mid` restarts the stream with
    /// `@bookTicker` too, whose best bid/ask then make the price (#26 item 15).
    @Test func aReloadToBasisMidSubscribesTheBookTicker() async throws {
        let (_, harness, server) = try await Self.binanceStreamingBesideBybit()
        defer { harness.cleanUp() }
        let daemon = try await Self.startSubscribed(harness, to: server)
        defer { daemon.terminate() }
        #expect(server.connections.first?.texts.contains { $0.contains("bookTicker") } == false)

        try harness.writeConfig(Self.config(harness, stream: server.url(), rule: ["basis: mid"] + Self.warningRule))
        daemon.signal(SIGHUP)
        try await server.waitUntil("a connection asking for the book ticker", timeout: .seconds(15)) { server in
            server.connections.contains { $0.texts.contains { $0.contains("btcusdt@bookTicker") && $0.contains("btcusdt@ticker") } }
        }
        // A best bid/ask well above Bybit's price makes the mid premium fire.
        server.push(#"{"u":7,"s":"BTCUSDT","b":"100199.00","B":"1","a":"100201.00","A":"1"}"#)
        let firing = try await daemon.waitForEvent("the mid spike") { $0.key == "premium/global/BTC" && $0.status == "firing" }
        #expect(firing.premium?.high.exchange == "binance")
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0)
        await server.shutdown()
    }
}
