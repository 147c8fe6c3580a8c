import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// A stdout nobody reads (a stuck journald, a `| head` that stopped) holds up nothing else: streams, the
/// engine, webhooks and the HTTP server go on; stdout's notifications stay pending and are not lost.
@Suite(.serialized, .enabled(if: DaemonProcess.binaryExists, "needs the built marketalertd binary (swift build)"))
struct BlockedStdoutIntegrationTests {
    @Test func aFullStdoutPipeDelaysNeitherTheWebhookNorHealthz() async throws {
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        let receiver = MockWebhookReceiver(on: apis.server, answer: .status(200))
        apis.set("binance", "BTC", "100000.00")
        apis.set("bybit", "BTC", "100000.00")
        apis.set("upbit", "BTC", "140000000")
        try harness.writeConfig(harness.standardConfig(
            webhooks: #"[{ name: hook, url: "\#(receiver.url)", format: json, timeout: 2s }]"#,
            extra: "http:\n  listen: \"127.0.0.1:0\"\n"))
        let daemon = try harness.start(stdoutFullPipe: true)
        defer { daemon.terminate() }
        try await daemon.waitUntilRunning()
        let api = try await DaemonAPI.connect(to: daemon)
        try await daemon.waitUntil("ready") { try await api.get("/readyz").status == 200 }

        // Two notifications: the first fills what stdout could take, the second finds it blocked.
        apis.set("bybit", "BTC", "100060.00")  // 0.06% ≥ 0.05 notice
        let changed = ContinuousClock.now
        try await daemon.waitUntil("the notice at the webhook", timeout: .seconds(3)) { receiver.acceptedIDs.count >= 1 }
        apis.set("bybit", "BTC", "100120.00")  // 0.12% ≥ 0.1 warning
        try await daemon.waitUntil("the warning at the webhook", timeout: .seconds(3)) { receiver.acceptedIDs.count >= 2 }
        #expect(ContinuousClock.now - changed < .seconds(6))

        let asked = ContinuousClock.now
        let health = try await api.get("/healthz")
        #expect(health.status == 200)
        #expect(ContinuousClock.now - asked < .seconds(1), "healthz answered after \(ContinuousClock.now - asked)")
        #expect(daemon.isRunning)

        // Nothing written to stdout was lost: both notifications are still pending for it in the state store.
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(6)) == 0, "stderr: \(daemon.stderrLines.suffix(10))")
        let pending = try await SQLiteStore(directory: harness.stateDirectory).pendingEvents().map(\.id)
        #expect(pending == receiver.acceptedIDs)
    }
}
