import Foundation
import MarketAlertCore
import MarketAlertTestSupport
import Testing

/// The built daemon with Binance on its stream (`basis: mid`, so `bookTicker` prices count) against Bybit on
/// REST at 60,000: a `bookTicker` whose update id `u` is not newer than the last applied is dropped and
/// counted (`out_of_order`), and with `keep_firing_for` a price flapping every ~100 ms notifies once.
@Suite(.serialized, .enabled(if: DaemonProcess.binaryExists, "needs the built marketalertd binary (swift build)"))
struct StreamOrderIntegrationTests {
    static func config(_ harness: DaemonHarness, stream: URL, keepFiringFor: String? = nil) -> String {
        let rule = ["basis: mid", "levels:", "  - { pct: 0.3, severity: notice }", "clear_pct: 0.1"] + (keepFiringFor.map { ["keep_firing_for: \($0)"] } ?? [])
        return StreamIntegrationTests.config(harness, stream: stream, rule: rule)
    }

    static func book(_ u: Int, _ price: String) -> String {
        #"{"u":\#(u),"s":"BTCUSDT","b":"\#(price)","B":"1","a":"\#(price)","A":"1"}"#
    }

    static func start(_ harness: DaemonHarness, _ server: WebSocketTestServer, keepFiringFor: String? = nil) async throws -> DaemonProcess {
        harness.apis.set("binance", "BTC", "60000.00")
        harness.apis.set("bybit", "BTC", "60000.00")
        try harness.writeConfig(Self.config(harness, stream: server.url(), keepFiringFor: keepFiringFor))
        let daemon = try harness.start()
        do {
            try await daemon.waitUntilRunning()
            try await daemon.waitForLine("the stream live", stderr: true) { $0.contains("binance stream live") }
        } catch {
            daemon.terminate()
            throw error
        }
        return daemon
    }

    @Test func aBookTickerWithADecreasingUpdateIdIsDroppedAndCounted() async throws {
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        let server = try await WebSocketTestServer(persona: StreamPersonas.of(.binance)(StreamPersonaKnobs()))
        let daemon = try await Self.start(harness, server)
        defer { daemon.terminate() }
        let api = try await DaemonAPI.connect(to: daemon)

        server.push(Self.book(100, "60000.00"))
        // Older than the one applied: 0.5% above Bybit, which would fire (level 0.3%) if it were applied.
        server.push(Self.book(99, "60300.00"))
        try await daemon.waitUntil("the out-of-order drop in /metrics") {
            (try await api.metrics().value("marketalertd_quotes_rejected_total", ["exchange": "binance", "reason": "out_of_order"]) ?? 0) >= 1
        }
        try await Task.sleep(for: .milliseconds(500))
        #expect(!daemon.events.contains { $0.key == "premium/global/BTC" }, "the stale update was applied")
        // A newer one at the same price fires: the drop above was the order, not the price.
        server.push(Self.book(101, "60300.00"))
        let firing = try await daemon.waitForEvent("the firing of the newer update", timeout: .seconds(10)) {
            $0.key == "premium/global/BTC" && $0.status == "firing"
        }
        #expect(firing.premium?.high.exchange == "binance")
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(10)) == 0)
        await server.shutdown()
    }

    @Test func keepFiringForTurnsAFlappingPriceIntoOneFiring() async throws {
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        let server = try await WebSocketTestServer(persona: StreamPersonas.of(.binance)(StreamPersonaKnobs()))
        let daemon = try await Self.start(harness, server, keepFiringFor: "10s")
        defer { daemon.terminate() }

        // 60,000 / 60,300 every ~100 ms for about 3 s: 0% and 0.5% against Bybit's 60,000, across both levels.
        var u = 1000
        for swing in 0..<30 {
            u += 1
            server.push(Self.book(u, swing % 2 == 0 ? "60300.00" : "60000.00"))
            try await Task.sleep(for: .milliseconds(100))
        }
        try await daemon.waitForEvent("the firing") { $0.key == "premium/global/BTC" && $0.status == "firing" }
        try await Task.sleep(for: .seconds(1))
        let notifications = daemon.events.filter { $0.key == "premium/global/BTC" }
        #expect(notifications.map(\.status) == ["firing"], "\(notifications.map(\.status))")
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(10)) == 0)
        await server.shutdown()
    }
}
