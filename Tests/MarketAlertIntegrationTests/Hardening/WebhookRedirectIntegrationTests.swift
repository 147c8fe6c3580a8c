import Foundation
import MarketAlertCore
import MarketAlertTestSupport
import Testing

/// The built daemon's webhook client never follows a redirect: a receiver answering 307 (then 302) sends
/// nothing to the Location's server, and the attempts are logged as failures and retried to the configured URL.
@Suite(.serialized, .enabled(if: DaemonProcess.binaryExists, "needs the built marketalertd binary (swift build)"))
struct WebhookRedirectIntegrationTests {
    @Test func aRedirectingReceiverIsRetriedAndTheOtherOriginReceivesNothing() async throws {
        let apis = try await MockMarketAPIs()
        let elsewhere = try await MockHTTPServer()
        elsewhere.route("/steal", response: .json("{}"))
        let receiver = MockWebhookReceiver(
            on: apis.server,
            answer: MockHTTPServer.Response(
                status: 307, headers: [("Location", "http://localhost:\(elsewhere.port)/steal?token=leaked")], body: Data()))
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        let secret = "whsec_" + Data(repeating: 9, count: 32).base64EncodedString()
        let daemon = try await harness.startStandard(
            btc: (binance: "100000.00", bybit: "100000.00", upbit: "140000000"),
            webhooks: #"[{ name: hook, url: "\#(receiver.url)", format: json, secret_env: WEBHOOK_SECRET, timeout: 2s }]"#,
            environment: ["WEBHOOK_SECRET": secret])
        defer { daemon.terminate() }

        apis.set("bybit", "BTC", "100060.00")  // 0.06% ≥ 0.05 notice
        try await daemon.waitForEvent("notice") { $0.key == "premium/global/BTC" }
        let failure = try await daemon.waitForLine("the failed attempt", stderr: true) { $0.contains("webhook attempt 1 failed") }
        #expect(failure.contains("HTTP 307 redirect to localhost"), "\(failure)")
        #expect(!failure.contains("leaked"))
        // A 302 next: still not followed (no GET with the signature headers goes there either).
        receiver.answer(MockHTTPServer.Response(
            status: 302, headers: [("Location", "http://localhost:\(elsewhere.port)/steal")], body: Data()))
        try await daemon.waitUntil("two more attempts to the configured URL", timeout: .seconds(15)) {
            receiver.deliveries.count >= 3
        }
        #expect(receiver.deliveries.contains { $0.status == 302 })
        #expect(receiver.deliveries.allSatisfy { $0.request.method == "POST" && $0.request.header("webhook-signature") != nil })
        #expect(elsewhere.requests.isEmpty, "the other origin got \(elsewhere.requests.map { "\($0.method) \($0.path)" })")
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0)
        await elsewhere.shutdown()
    }
}
