import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// ntfy and email through the built daemon: an ntfy receiver (a route on the local mock server) gets the
/// text with Title, Priority, Tags, Click and the bearer token, and a 503 is retried; an email refused with a
/// 4xx waits in the outbox across a SIGKILL and reaches the real SMTP server once after the restart, with the
/// Message-ID made from the notification id. No secret appears in the daemon's output.
@Suite(.serialized, .enabled(if: DaemonProcess.binaryExists, "needs the built marketalertd binary (swift build)"))
struct NtfyEmailIntegrationTests {
    static let token = "tk_ntfy0123456789abcdefghijkl"
    static let password = "smtp-password-4c9f1e77"

    @Test func checkConfigNamesEmailAndNtfyMistakesAndMissingSecrets() async throws {
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        let bad = #"[{ name: phone, url: "http://127.0.0.1:1/t", format: ntfy, token_env: NTFY_TOKEN }]"# + """

              email:
                - { name: phone, smtp_url: "smtp://u:\(Self.password)@127.0.0.1", from: "a@b.org", to: ["c@d.org"] }
            """
        try harness.writeConfig(harness.standardConfig(webhooks: bad))
        let failed = try await CommandRunner.run([DaemonProcess.binary.path, "check-config", "--config", harness.configPath], timeoutSeconds: 60)
        #expect(failed.status == 1)
        #expect(failed.stderr.contains("sinks.email[0].name: duplicate sink name \"phone\""), "\(failed.stderr)")
        #expect(failed.stderr.contains("sinks.email[0].smtp_url: must not contain a user name or password"))
        #expect(!failed.stderr.contains(Self.password))

        let good = #"[{ name: phone, url: "http://127.0.0.1:1/t", format: ntfy, token_env: NTFY_TOKEN }]"# + """

              email:
                - { name: mail, smtp_url: "smtps://127.0.0.1:1", username_env: SMTP_USER, password_env: SMTP_PASSWORD, from: "a@b.org", to: ["c@d.org"] }
            """
        try harness.writeConfig(harness.standardConfig(webhooks: good))
        let passed = try await CommandRunner.run(
            ["/usr/bin/env", "-u", "NTFY_TOKEN", "-u", "SMTP_USER", "-u", "SMTP_PASSWORD", "-u", "CREDENTIALS_DIRECTORY",
             "OXR_APP_ID=test-app-id", DaemonProcess.binary.path, "check-config", "--config", harness.configPath], timeoutSeconds: 60)
        #expect(passed.status == 0, "\(passed)")
        #expect(passed.stdout.contains("1 webhooks, 1 email sinks"))
        #expect(passed.stderr.contains("webhook \"phone\" is disabled: its token_env secret NTFY_TOKEN is not set"), "\(passed.stderr)")
        #expect(passed.stderr.contains("email \"mail\" is disabled: its secrets SMTP_USER and SMTP_PASSWORD are not set"))
    }

    @Test func ntfyGetsItsHeadersAndA503IsRetried() async throws {
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        let receiver = MockWebhookReceiver(on: apis.server, path: "/marketalertd-topic", answer: .status(503))
        apis.set("binance", "BTC", "100000.00")
        apis.set("bybit", "BTC", "100000.00")
        apis.set("upbit", "BTC", "140000000")
        try harness.writeConfig(harness.standardConfig(
            webhooks: #"[{ name: phone, url: "\#(receiver.url)", format: ntfy, token_env: NTFY_TOKEN, timeout: 2s, kinds: [premium] }]"#,
            extra: "http:\n  listen: \"127.0.0.1:0\"\n  external_url: \"http://status.example.invalid:9108/\"\n"))
        let daemon = try harness.start(environment: ["NTFY_TOKEN": Self.token])
        defer { daemon.terminate() }
        try await daemon.waitUntilRunning()

        apis.set("bybit", "BTC", "100060.00")  // 0.06% ≥ 0.05 notice
        let notice = try await daemon.waitForEvent("notice") { $0.key == "premium/global/BTC" && $0.severity == .notice }
        try await daemon.waitUntil("a refused ntfy POST", timeout: .seconds(5)) { receiver.deliveries.contains { $0.status == 503 } }
        receiver.answer(.status(200))
        try await daemon.waitUntil("the ntfy POST retried and accepted", timeout: .seconds(10)) { !receiver.acceptedIDs.isEmpty }
        #expect(receiver.acceptedIDs == [notice.id])
        for delivery in receiver.deliveries {
            let request = delivery.request
            #expect(request.method == "POST")
            #expect(request.header("Authorization") == "Bearer \(Self.token)")
            #expect(request.header("Title") == "[notice] BTC global premium 0.06%")
            #expect(request.header("Priority") == "3")
            #expect(request.header("Tags") == "rotating_light,premium,notice")
            #expect(request.header("Click") == "http://status.example.invalid:9108/")
            #expect(request.header("Content-Type") == "text/plain; charset=utf-8")
            #expect(String(decoding: request.body, as: UTF8.self) == WebhookBody.text(for: notice))
        }
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(6)) == 0)
        let output = (daemon.stdoutLines + daemon.stderrLines).joined(separator: "\n")
        #expect(!output.contains(Self.token))
    }

    @Test func aPermanentSMTPRefusalIsDroppedAndCounted() async throws {
        let smtp = try await SMTPTestServer.start(replies: [554])
        defer { smtp.stop() }
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        apis.set("binance", "BTC", "100000.00")
        apis.set("bybit", "BTC", "100000.00")
        apis.set("upbit", "BTC", "140000000")
        let email = """
            []
              email:
                - { name: mail, smtp_url: "smtp://127.0.0.1:\(smtp.port)", from: "a@example.org", to: ["me@example.org"], kinds: [premium] }
            """
        try harness.writeConfig(harness.standardConfig(webhooks: email, extra: "http:\n  listen: \"127.0.0.1:0\"\n"))
        let daemon = try harness.start()
        defer { daemon.terminate() }
        try await daemon.waitUntilRunning()
        let api = try await DaemonAPI.connect(to: daemon)
        apis.set("bybit", "BTC", "100060.00")
        try await daemon.waitForEvent("notice") { $0.key == "premium/global/BTC" && $0.severity == .notice }
        try await smtp.waitFor("the refusal") { $0.event == "refused" && $0.code == 554 }
        try await daemon.waitUntil("the drop counted in /metrics", timeout: .seconds(5)) {
            try await api.metrics().value("marketalertd_webhook_dropped_total", ["webhook": "mail", "reason": "permanent"]) == 1
        }
        try await daemon.waitForLine("the drop logged", stderr: true) { $0.contains("dropped") && $0.contains("554") }
        #expect(try await IndependentChecks.queuedWebhookEventIDs(stateDirectory: harness.stateDirectory, webhook: "mail") == [])
        #expect(smtp.events().filter { $0.event == "data" }.count == 1, "a permanent refusal is not retried")
        #expect(smtp.accepted.isEmpty)
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(6)) == 0)
    }

    @Test func anEmailRefusedBeforeAKill9IsSentOnceAfterTheRestart() async throws {
        let smtp = try await SMTPTestServer.start(tls: .startTLS, auth: ("alice", Self.password))
        defer { smtp.stop() }
        try smtp.refuse(with: 451)  // until the daemon is killed: every attempt is refused
        let apis = try await MockMarketAPIs()
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        apis.set("binance", "BTC", "100000.00")
        apis.set("bybit", "BTC", "100000.00")
        apis.set("upbit", "BTC", "140000000")
        let email = """
            []
              email:
                - name: mail
                  smtp_url: "smtp://127.0.0.1:\(smtp.port)"
                  username_env: SMTP_USER
                  password_env: SMTP_PASSWORD
                  from: "marketalertd <alerts@example.org>"
                  to: ["me@example.org"]
                  kinds: [premium]
                  timeout: 5s
                  ca_file: "\(smtp.caFile ?? "")"
            """
        try harness.writeConfig(harness.standardConfig(webhooks: email, extra: "http:\n  listen: \"127.0.0.1:0\"\n"))
        // The password comes from $CREDENTIALS_DIRECTORY (systemd LoadCredential=), the user from the environment.
        let credentials = harness.directory.appendingPathComponent("credentials")
        try FileManager.default.createDirectory(at: credentials, withIntermediateDirectories: true)
        try Self.password.write(to: credentials.appendingPathComponent("SMTP_PASSWORD"), atomically: true, encoding: .utf8)
        let environment = ["SMTP_USER": "alice", "CREDENTIALS_DIRECTORY": credentials.path]

        let first = try harness.start(environment: environment)
        defer { first.terminate() }
        try await first.waitUntilRunning()
        apis.set("bybit", "BTC", "100060.00")
        let notice = try await first.waitForEvent("notice") { $0.key == "premium/global/BTC" && $0.severity == .notice }
        try await smtp.waitFor("the refused first attempt") { $0.event == "refused" && $0.code == 451 }
        try await first.waitUntil("the email still queued", timeout: .seconds(5)) {
            try await IndependentChecks.queuedWebhookEventIDs(stateDirectory: harness.stateDirectory, webhook: "mail") == [notice.id]
        }
        // The outbox's own gauge counts it, as for a webhook.
        let api = try await DaemonAPI.connect(to: first)
        try await first.waitUntil("the email pending in /metrics") {
            try await api.metrics().value("marketalertd_webhook_pending", ["webhook": "mail"]) == 1
        }
        first.signal(SIGKILL)
        #expect(await first.waitForExit(timeout: .seconds(5)) != nil)
        #expect(smtp.accepted.isEmpty)
        try smtp.refuse(with: nil)

        let second = try harness.start(environment: environment)
        defer { second.terminate() }
        try await smtp.waitFor("the email accepted after the restart") { $0.event == "accepted" }
        try await second.waitUntil("the outbox empty", timeout: .seconds(5)) {
            try await IndependentChecks.queuedWebhookEventIDs(stateDirectory: harness.stateDirectory, webhook: "mail") == []
        }
        // Ten more polls: nothing re-fired, nothing sent twice.
        let polled = apis.server.requests(to: "/api/v3/ticker/24hr").count
        try await second.waitUntil("ten more polls") { apis.server.requests(to: "/api/v3/ticker/24hr").count >= polled + 10 }
        let accepted = smtp.accepted
        #expect(accepted.count == 1)
        let message = try #require(accepted.first?.message)
        #expect(accepted.first?.tls == true && accepted.first?.auth == "alice")
        #expect(message.contains("\r\nMessage-ID: <\(notice.id)@example.org>\r\n"))
        #expect(message.contains("\r\nSubject: [notice] BTC global premium 0.06%\r\n"))
        second.signal(SIGTERM)
        #expect(await second.waitForExit(timeout: .seconds(6)) == 0)
        let output = (first.stdoutLines + first.stderrLines + second.stdoutLines + second.stderrLines).joined(separator: "\n")
        #expect(!output.contains(Self.password))
        #expect(!output.contains(Data(Self.password.utf8).base64EncodedString()))
    }
}
