import Foundation
import MarketAlertCore
import MarketAlertTestSupport
import MarketAlertIO
import Testing

/// The built daemon's webhook outbox against a receiver route on the local mock server: notifications
/// pending when the daemon is killed with SIGKILL arrive after a restart with their original ids, in order
/// and signed; a hanging receiver does not hold up stdout.
@Suite(.serialized, .enabled(if: DaemonProcess.binaryExists, "needs the built marketalertd binary (swift build)"))
struct WebhookDeliveryIntegrationTests {
    /// A Standard Webhooks secret: `whsec_` + base64 of 32 random bytes (the key is the decoded bytes).
    static let secret = "whsec_" + Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
    static let environment = ["WEBHOOK_SECRET": secret]

    static func webhooks(_ receiver: MockWebhookReceiver, timeout: String) -> String {
        #"[{ name: hook, url: "\#(receiver.url)", format: json, secret_env: WEBHOOK_SECRET, timeout: \#(timeout) }]"#
    }

    @Test func notificationsPendingAtAKill9ArriveAfterTheRestartWithTheirIDsInOrder() async throws {
        let apis = try await MockMarketAPIs()
        let receiver = MockWebhookReceiver(on: apis.server, answer: .status(503))
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        let first = try await harness.startStandard(
            btc: (binance: "100000.00", bybit: "100000.00", upbit: "140000000"), webhooks: Self.webhooks(receiver, timeout: "2s"),
            environment: Self.environment)
        defer { first.terminate() }

        apis.set("bybit", "BTC", "100060.00")  // 0.06% ≥ 0.05 notice
        try await first.waitForEvent("notice") { $0.key == "premium/global/BTC" && $0.severity == .notice }
        apis.set("bybit", "BTC", "100120.00")  // 0.12% ≥ 0.1 warning
        try await first.waitForEvent("warning") { $0.key == "premium/global/BTC" && $0.severity == .warning }
        let sent = first.events
        let ids = sent.map(\.id)
        #expect(ids.count == 2, "\(first.stdoutLines)")
        // The receiver refused the first attempt, and both notifications are in the SQLite outbox.
        try await first.waitUntil("a refused webhook attempt", timeout: .seconds(5)) { receiver.deliveries.contains { $0.status == 503 } }
        try await first.waitUntil("both notifications queued", timeout: .seconds(5)) {
            try await IndependentChecks.queuedWebhookEventIDs(stateDirectory: harness.stateDirectory, webhook: "hook") == ids
        }

        first.signal(SIGKILL)
        #expect(await first.waitForExit(timeout: .seconds(5)) != nil)
        #expect(receiver.acceptedIDs.isEmpty)
        #expect(receiver.deliveries.allSatisfy { $0.webhookID == ids.first }, "head-of-line: only the oldest is tried")
        receiver.answer(.status(200))
        let refused = receiver.deliveries.count

        let second = try harness.start(environment: Self.environment)
        defer { second.terminate() }
        try await second.waitUntil("the queued notifications delivered", timeout: .seconds(10)) { receiver.acceptedIDs.count >= ids.count }
        #expect(receiver.acceptedIDs == ids)
        let accepted = receiver.deliveries.dropFirst(refused)
        for (delivery, event) in zip(accepted, sent) {
            let request = delivery.request
            let body = try AlertEvent.makeDecoder().decode(AlertEvent.self, from: request.body)
            #expect(body == event, "the body is the event printed on stdout")
            #expect(request.header("webhook-id") == event.id)
            let timestamp = try #require(request.header("webhook-timestamp"))
            let seconds = try #require(TimeInterval(timestamp))
            #expect(abs(seconds - Date().timeIntervalSince1970) < 60)
            let signature = try #require(request.header("webhook-signature"))
            #expect(try await WebhookSignatureCheck.isValid(
                secret: Self.secret, id: event.id, timestamp: timestamp, header: signature, body: request.body))
            #expect(!(try await WebhookSignatureCheck.isValid(
                secret: Self.secret, id: event.id + "x", timestamp: timestamp, header: signature, body: request.body)))
        }
        #expect(try await SchemaValidator.validateAlertEvents(accepted.map { String(decoding: $0.request.body, as: UTF8.self) }) == [])

        // The premium is still there: ten more polls, no alert re-fired, nothing sent twice, the outbox empty.
        let polled = apis.server.requests(to: "/api/v3/ticker/24hr").count
        try await second.waitUntil("ten more polls") { apis.server.requests(to: "/api/v3/ticker/24hr").count >= polled + 10 }
        #expect(second.events.isEmpty, "re-fired after the restart: \(second.stdoutLines)")
        #expect(receiver.acceptedIDs == ids)
        #expect(try await IndependentChecks.queuedWebhookEventIDs(stateDirectory: harness.stateDirectory, webhook: "hook") == [])
        second.signal(SIGTERM)
        #expect(await second.waitForExit(timeout: .seconds(5)) == 0)
    }

    @Test func aHangingReceiverDoesNotDelayStdoutAlerts() async throws {
        let apis = try await MockMarketAPIs()
        // Answers after a minute, far beyond the webhook's 10 s timeout.
        let receiver = MockWebhookReceiver(on: apis.server, answer: .status(200, delay: .seconds(60)))
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        let daemon = try await harness.startStandard(
            btc: (binance: "100000.00", bybit: "100000.00", upbit: "140000000"), webhooks: Self.webhooks(receiver, timeout: "10s"),
            environment: Self.environment)
        defer { daemon.terminate() }

        apis.set("bybit", "BTC", "100060.00")
        let notice = try await daemon.waitForEvent("notice") { $0.key == "premium/global/BTC" && $0.severity == .notice }
        try await daemon.waitUntil("the webhook request of the notice", timeout: .seconds(5)) { !receiver.deliveries.isEmpty }
        let hangingSince = try #require(receiver.deliveries.first).arrivedAt
        #expect(receiver.deliveries.first?.webhookID == notice.id)

        let changed = ContinuousClock.now
        apis.set("bybit", "BTC", "100120.00")
        try await daemon.waitForEvent("warning while the webhook hangs", timeout: .seconds(8)) {
            $0.key == "premium/global/BTC" && $0.severity == .warning
        }
        let latency = ContinuousClock.now - changed
        #expect(latency < .seconds(3), "stdout waited \(latency) for the webhook")
        // Still inside the webhook's 10 s timeout: the first request is still hanging, the second queued behind it.
        #expect(ContinuousClock.now - hangingSince < .seconds(10))
        #expect(receiver.deliveries.count == 1)

        // Nor does it hold up a graceful shutdown.
        let stopping = ContinuousClock.now
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(6)) == 0, "stderr: \(daemon.stderrLines.suffix(10))")
        #expect(ContinuousClock.now - stopping < .seconds(5))
    }

    @Test func aStdoutThatCannotBeWrittenIsAFailedDeliveryLoggedWhileTheWebhookStillGetsTheAlert() async throws {
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        let receiver = MockWebhookReceiver(on: apis.server, answer: .status(200))
        apis.set("binance", "BTC", "100000.00")
        apis.set("bybit", "BTC", "100000.00")
        apis.set("upbit", "BTC", "140000000")
        try harness.writeConfig(harness.standardConfig(webhooks: Self.webhooks(receiver, timeout: "2s")))
        let daemon = try harness.start(environment: ["WEBHOOK_SECRET": Self.secret], stdoutFile: "/dev/full")
        defer { daemon.terminate() }
        try await daemon.waitUntilRunning()
        apis.set("bybit", "BTC", "100200.00")
        try await daemon.waitUntil("the webhook delivery", timeout: .seconds(10)) { !receiver.acceptedIDs.isEmpty }
        try await daemon.waitForLine("the failed stdout write", stderr: true) { $0.contains("notification not delivered") && $0.contains("stdout") }
        #expect(daemon.isRunning)
        // Not marked delivered: the notification is still pending in the state store for stdout.
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0)
        #expect(try await SQLiteStore(directory: harness.stateDirectory).pendingEvents().map(\.id) == receiver.acceptedIDs)
    }
}
