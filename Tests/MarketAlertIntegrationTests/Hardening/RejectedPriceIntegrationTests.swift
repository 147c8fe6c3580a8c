import Foundation
import MarketAlertCore
import MarketAlertTestSupport
import Testing

/// The built daemon logs ticker rows with an unusable price, once per interval however often it polls, and
/// never alerts on them.
@Suite(.serialized, .enabled(if: DaemonProcess.binaryExists, "needs the built marketalertd binary (swift build)"))
struct RejectedPriceIntegrationTests {
    @Test func anImplausiblePriceIsLoggedOnceAndNeverAlerted() async throws {
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        // binance's BTC at 1e39 would be a huge premium if it were a price; its ETH is fine, so polls succeed.
        apis.set("binance", "BTC", "1e39")
        apis.set("bybit", "BTC", "100000")
        apis.set("upbit", "BTC", "140000000")
        apis.set("binance", "ETH", "3500")
        apis.set("bybit", "ETH", "3500")
        let config = harness.standardConfig().replacingOccurrences(
            of: "assets: [BTC]\n      exchanges: [binance, bybit]", with: "assets: [BTC, ETH]\n      exchanges: [binance, bybit]")
        #expect(config.contains("assets: [BTC, ETH]"))
        try harness.writeConfig(config)
        let daemon = try harness.start()
        defer { daemon.terminate() }
        try await daemon.waitUntilRunning()
        let line = try await daemon.waitForLine("the rejected-row warning", stderr: true) { $0.contains("unusable price") }
        #expect(line.contains("binance: 1 ticker row with an unusable price"), "\(line)")
        #expect(line.contains("BTCUSDT last") && line.contains("1e39"), "\(line)")
        let polled = apis.server.requests(to: "/api/v3/ticker/24hr").count
        try await daemon.waitUntil("ten more binance polls", timeout: .seconds(20)) {
            apis.server.requests(to: "/api/v3/ticker/24hr").count >= polled + 10
        }
        #expect(daemon.stderrLines.filter { $0.contains("unusable price") }.count == 1, "rate-limited: \(daemon.stderrLines.suffix(20))")
        #expect(!daemon.events.contains { $0.kind == .premium }, "\(daemon.stdoutLines)")
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0)
    }
}
