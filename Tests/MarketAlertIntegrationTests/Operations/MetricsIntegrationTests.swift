import Foundation
import MarketAlertCore
import MarketAlertTestSupport
import Testing

/// The built daemon's HTTP server against the mock exchanges: `/metrics` parsed by Python's
/// prometheus_client and checked against known state, health and readiness, the status API.
@Suite(.serialized, .enabled(if: DaemonProcess.binaryExists, "needs the built marketalertd binary (swift build)"))
struct MetricsIntegrationTests {
    static let http = "http:\n  listen: \"127.0.0.1:0\"\n"

    @Test func metricsFollowSourcesAlertsAndTheWebhookOutbox() async throws {
        let apis = try await MockMarketAPIs()
        let receiver = MockWebhookReceiver(on: apis.server, answer: .status(503))
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        apis.set("binance", "BTC", "100000.00")
        apis.set("bybit", "BTC", "100000.00")
        apis.set("upbit", "BTC", "140000000")
        try harness.writeConfig(harness.standardConfig(
            webhooks: #"[{ name: hook, url: "\#(receiver.url)", format: json, timeout: 2s }]"#, extra: Self.http))
        let daemon = try harness.start()
        defer { daemon.terminate() }
        try await daemon.waitUntilRunning()
        let api = try await DaemonAPI.connect(to: daemon)

        try await daemon.waitUntil("ready") { try await api.get("/readyz").status == 200 }
        #expect(try await api.get("/healthz").json["status"] as? String == "ok")
        let status = try await api.get("/api/v1/status").json
        #expect(status["listen"] as? String == String(api.base.dropFirst("http://".count)))

        apis.set("bybit", "BTC", "100060.00")  // 0.06% ≥ 0.05 notice
        try await daemon.waitForEvent("notice") { $0.key == "premium/global/BTC" && $0.severity == .notice }
        try await daemon.waitUntil("the notice waiting in the outbox") {
            (try await api.metrics().value("marketalertd_webhook_pending", ["webhook": "hook"]) ?? 0) >= 1
        }
        let answer = try await api.get("/metrics")
        #expect(answer.headers.first(name: "Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
        let metrics = try await PrometheusText.parse(answer.text)
        #expect(metrics.value("marketalertd_source_up", ["source": "binance"]) == 1)
        #expect(metrics.value("marketalertd_source_up", ["source": "dunamu"]) == 1)
        #expect(!metrics.samples.contains { $0.labels["source"] == "openexchangerates" && $0.name == "marketalertd_source_up" }, "a fallback never called has no last fetch")
        #expect(metrics.value("marketalertd_stream_connected", ["exchange": "binance"]) == 0)
        #expect((metrics.value("marketalertd_quotes_received_total", ["exchange": "binance", "transport": "rest"]) ?? 0) >= 1)
        #expect((metrics.value("marketalertd_fetch_duration_seconds_count", ["source": "binance"]) ?? 0) >= 1)
        #expect((metrics.value("marketalertd_fetch_duration_seconds_count", ["source": "dunamu"]) ?? 0) >= 1)
        #expect(metrics.value("marketalertd_fetch_duration_seconds_bucket", ["source": "binance", "le": "+Inf"]) != nil)
        #expect(abs((metrics.value("marketalertd_premium_pct", ["rule": "global", "asset": "BTC"]) ?? -1) - 0.06) < 1e-9)
        #expect(metrics.value("marketalertd_alert_firing", ["rule": "global", "asset": "BTC"]) == 1)
        #expect(metrics.value("marketalertd_alert_firing", ["rule": "kimchi", "asset": "BTC"]) == 0)
        #expect(metrics.value("marketalertd_notifications_total", ["kind": "premium", "status": "firing"]) == 1)
        #expect(metrics.value("marketalertd_tick_to_notification_seconds_count", ["kind": "premium"]) == 1)
        #expect((metrics.value("marketalertd_webhook_oldest_pending_seconds", ["webhook": "hook"]) ?? 0) > 0)
        #expect(metrics.value("marketalertd_fx_rate_age_seconds", ["pair": "USD/KRW", "provider": "dunamu"]) != nil)
        #expect(metrics.type(of: "marketalertd_quotes_received") == "counter")
        #expect(metrics.type(of: "marketalertd_source_up") == "gauge")
        #expect(metrics.type(of: "marketalertd_fetch_duration_seconds") == "histogram")
        #expect(metrics.type(of: "marketalertd_tick_to_notification_seconds") == "histogram")

        // The receiver comes back: the outbox drains to 0.
        receiver.answer(.status(200))
        try await daemon.waitUntil("the outbox drained") {
            let now = try await api.metrics()
            return now.value("marketalertd_webhook_pending", ["webhook": "hook"]) == 0
                && now.value("marketalertd_webhook_oldest_pending_seconds", ["webhook": "hook"]) == 0
        }

        // bybit fails: its source_up drops to 0, binance stays up; garbage counts as rejected.
        apis.override("bybit", with: .json(#"{"retCode":0,"retMsg":"OK","result":{"category":"spot","list":[{"symbol":"BTCUSDT","lastPrice":"1"#))
        try await daemon.waitUntil("bybit down in /metrics") {
            try await api.metrics().value("marketalertd_source_up", ["source": "bybit"]) == 0
        }
        let failing = try await api.metrics()
        #expect(failing.value("marketalertd_source_up", ["source": "binance"]) == 1)
        #expect((failing.value("marketalertd_quotes_rejected_total", ["exchange": "bybit", "reason": "parse_error"]) ?? 0) >= 1)
        let bybit = try #require((try await api.get("/api/v1/status").json["sources"] as? [[String: Any]])?.first { $0["name"] as? String == "bybit" })
        #expect(bybit["up"] as? Bool == false)
        #expect((bybit["consecutive_failures"] as? Int ?? 0) >= 1)
        #expect(try await api.request(.POST, "/metrics").status == 405)

        // A row priced 0 is one quote dropped, counted per quote by why.
        apis.set("binance", "BTC", "0")
        try await daemon.waitUntil("binance's zero price counted") {
            (try await api.metrics().value("marketalertd_quotes_rejected_total", ["exchange": "binance", "reason": "invalid_price"]) ?? 0) >= 1
        }

        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0)
        await api.shutdown()
    }

    @Test func aReloadMovesTheServerAndAnOpenAddressWithoutATokenIsRefused() async throws {
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        try harness.writeConfig(harness.ipoOnlyConfig() + "\nhttp:\n  listen: \"127.0.0.1:0\"\n")
        let daemon = try harness.start()
        defer { daemon.terminate() }
        try await daemon.waitUntilRunning()
        let first = try await DaemonAPI.connect(to: daemon)
        #expect(try await first.get("/healthz").status == 200)

        // Reachable from other machines without a token: rejected, the old address keeps serving.
        try harness.writeConfig(harness.ipoOnlyConfig() + "\nhttp:\n  listen: \"0.0.0.0:0\"\n")
        daemon.signal(SIGHUP)
        try await daemon.waitForLine("the reload rejected", stderr: true) { $0.contains("http.token_env") && $0.contains("reachable from other machines") }
        #expect(try await first.get("/healthz").status == 200)

        try harness.writeConfig(harness.ipoOnlyConfig() + "\nhttp:\n  listen: \"127.0.0.3:0\"\n")
        daemon.signal(SIGHUP)
        try await daemon.waitForLine("the new address", stderr: true) { $0.contains("http: listening on 127.0.0.3:") }
        let line = try #require(daemon.stderrLines.last { $0.contains("http: listening on 127.0.0.3:") })
        let listen = try #require(line.range(of: "listening on ").map { line[$0.upperBound...].prefix { !$0.isWhitespace && $0 != "," && $0 != "\"" } })
        let moved = DaemonAPI(base: "http://\(listen)", client: first.client)
        #expect(try await moved.get("/healthz").status == 200)
        #expect((try await moved.get("/api/v1/status").json["listen"] as? String) == String(listen))
        await first.shutdown()
    }

    @Test func aPortAlreadyTakenStopsTheStartWithAClearError() async throws {
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        let taken = apis.server.baseURL.port ?? 1
        try harness.writeConfig(harness.ipoOnlyConfig() + "\nhttp:\n  listen: \"127.0.0.1:\(taken)\"\n")
        let daemon = try harness.start()
        defer { daemon.terminate() }
        #expect(await daemon.waitForExit(timeout: .seconds(10)) == 1)
        #expect(daemon.stderrLines.contains { $0.contains("cannot listen on 127.0.0.1:\(taken)") }, "\(daemon.stderrLines.suffix(10))")
    }
}
