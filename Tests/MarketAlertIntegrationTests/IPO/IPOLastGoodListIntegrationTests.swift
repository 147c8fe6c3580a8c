import Foundation
import MarketAlertCore
import MarketAlertTestSupport
import Testing

/// The built daemon keeps the last good TWSE list across a restart: started again while TWSE answers only
/// errors, it still shows the open window (`/api/v1/status`) from the state directory, and tells no one it
/// opened a second time.
///
/// The daemon reads the real clock, so "today" is the real day in Taipei (as in IPOSubscriptionIntegrationTests).
@Suite(.serialized, .enabled(if: DaemonProcess.binaryExists, "needs the built marketalertd binary (swift build)"))
struct IPOLastGoodListIntegrationTests {
    static let code = IPOSubscriptionIntegrationTests.code

    @Test func aRestartWhileTWSEFailsStillShowsTheOpenWindow() async throws {
        let now = Date()
        var payload = try TWSEPublicFormPayload()
        try payload.openWindow(code: Self.code, start: now, days: 2)
        let apis = try await MockMarketAPIs()
        try apis.serveTWSE(payload)
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        let config = harness.ipoOnlyConfig() + "\nhttp:\n  listen: \"127.0.0.1:0\"\n"
        try harness.writeConfig(config)
        let key = "ipo/twse/\(Self.code)/\(TWSEPublicFormPayload.iso(now))"

        let first = try harness.start()
        defer { first.terminate() }
        let event = try await first.waitForEvent("the opens notification") { $0.kind == .ipo }
        #expect(event.key == key)
        first.signal(SIGTERM)
        #expect(await first.waitForExit(timeout: .seconds(5)) == 0)

        // TWSE now fails every request (an HTML error page, as a gateway would send).
        apis.server.route(TWSEPublicFormPayload.path, response: .init(
            status: 502, headers: [("Content-Type", "text/html")], body: Data("<html>Bad Gateway</html>".utf8)))
        let failedBefore = apis.twseRequests.count
        let second = try harness.start()
        defer { second.terminate() }
        let api = try await DaemonAPI.connect(to: second)
        try await second.waitUntil("two failed polls of the TWSE list") { apis.twseRequests.count >= failedBefore + 2 }
        let status = try await api.get("/api/v1/status")
        #expect(status.status == 200)
        let windows = status.json["ipo"] as? [[String: Any]] ?? []
        #expect(windows.compactMap { $0["code"] as? String } == [Self.code], "\(status.text)")
        #expect(windows.first?["state"] as? String == "open", "\(status.text)")
        #expect(!second.events.contains { $0.kind == .ipo && $0.key == key }, "announced again: \(second.stdoutLines)")
        second.signal(SIGTERM)
        #expect(await second.waitForExit(timeout: .seconds(5)) == 0)
    }
}
