import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// `format: ntfy` as ntfy's publishing docs describe it: the text is the body; Title, Priority (critical 5,
/// warning 4, notice 3, info 2, resolved 2), Tags (an emoji short code, the kind, the severity) and Click
/// (`http.external_url`) are headers; `token_env` becomes `Authorization: Bearer`, added when sending and
/// never queued; a 503 is retried through the outbox.
@Suite("ntfy", .timeLimit(.minutes(1)))
struct NtfyTests {
    static let click = URL(string: "http://marketalertd.example.invalid:9108/")

    @Test func priorities() {
        var event = SampleEvents.premium()
        for (severity, priority) in [(Severity.critical, 5), (.warning, 4), (.notice, 3), (.info, 2)] {
            event.severity = severity
            #expect(NtfyMessage(event, click: nil).priority == priority)
        }
        event.severity = .critical
        event.status = "resolved"
        #expect(NtfyMessage(event, click: nil).priority == 2)
        #expect(NtfyMessage(event, click: nil).tags == ["white_check_mark", "premium", "critical"])
    }

    @Test func headersOfAFiringPremium() throws {
        var event = SampleEvents.premium()
        event.premium?.pct = 3.5
        let message = NtfyMessage(event, click: Self.click)
        let headers = Dictionary(uniqueKeysWithValues: message.headers.map { ($0.name, $0.value) })
        #expect(headers == [
            "Title": "[warning] BTC global premium 3.5%", "Priority": "4", "Tags": "rotating_light,premium,warning",
            "Click": "http://marketalertd.example.invalid:9108/",
        ])
        #expect(message.message == WebhookBody.text(for: event))
        // Queued as JSON, read back unchanged; the token is never part of it.
        #expect(try NtfyMessage.decode(WebhookBody.render(event, format: .ntfy, chatID: nil, click: Self.click)) == message)
    }

    @Test func aNonASCIITitleIsAnEncodedWord() {
        let message = NtfyMessage(SampleEvents.ipo(), click: nil)
        #expect(message.title == "IPO 7795 長廣 opens today")
        let title = message.headers.first { $0.name == "Title" }?.value ?? ""
        #expect(title.hasPrefix("=?UTF-8?B?") && title.allSatisfy(\.isASCII))
        #expect(message.headers.contains { $0.name == "Click" } == false)
    }

    @Test("POSTed with its headers and the bearer token; a 503 is retried")
    func postedAndRetried() async throws {
        let harness = try await OutboxHarness()
        let token = "tk_abcdefghijklmnopqrstuvwxyz012"
        let target = WebhookTarget(
            name: "phone", url: harness.receiver.url, format: .ntfy, maxAge: .seconds(3600), bearerToken: SecretValue(token),
            clickURL: Self.click)
        harness.receiver.script([.status(503)], then: .json("{\"id\":\"x\"}"))
        let outbox = harness.outbox([target])
        var reports = harness.reports.stream.makeAsyncIterator()
        let event = SampleEvents.ipo()
        try await outbox.deliver(event)
        let stored = try await harness.store.webhookOutboxRows(webhook: "phone")
        #expect(stored.count == 1 && !String(decoding: stored[0].body, as: UTF8.self).contains(token))
        let run = Task { await outbox.run() }
        let start = harness.clock.now()
        guard case .retrying(_, _, 1, let next, let error) = try await reports.expectNext() else {
            Issue.record("expected a retry")
            return
        }
        #expect(error.hasPrefix("HTTP 503") && !error.contains(token))
        try await harness.clock.waitForSleeper(.webhookDelivery, at: next)
        await harness.clock.advance(by: .seconds(next.timeIntervalSince(start)))
        #expect(try await reports.expectNext() == .delivered(webhook: "phone", eventID: event.id, attempts: 2))
        let requests = harness.receiver.requests
        #expect(requests.count == 2)
        for request in requests {
            #expect(request.method == "POST")
            #expect(request.header("Authorization") == "Bearer \(token)")
            #expect(request.header("Content-Type") == "text/plain; charset=utf-8")
            #expect(request.header("Priority") == "3" && request.header("Tags") == "bell,ipo,notice")
            #expect(request.header("Click") == Self.click?.absoluteString)
            #expect(EmailMessageTests.decodeWords(request.header("Title") ?? "") == "IPO 7795 長廣 opens today")
            #expect(String(decoding: request.body, as: UTF8.self) == WebhookBody.text(for: event))
        }
        #expect(!harness.logs.all.contains { $0.text.contains(token) })
        run.cancel()
        await run.value
        await harness.shutdown()
    }

    @Test func aMissingTokenDisablesTheWebhookNamingTheSecret() {
        var hook = WebhookSettings(name: "phone")
        hook.url = URL(string: "https://ntfy.sh/topic")
        hook.format = .ntfy
        hook.tokenEnv = "NTFY_TOKEN"
        let missing = WebhookTarget.resolve([hook], secrets: SecretResolver(environment: [:]), externalURL: Self.click)
        #expect(missing.targets.isEmpty && missing.warnings.count == 1 && missing.warnings[0].contains("NTFY_TOKEN"))
        let set = WebhookTarget.resolve([hook], secrets: SecretResolver(environment: ["NTFY_TOKEN": "tk_0123456789"]), externalURL: Self.click)
        #expect(set.targets.first?.bearerToken?.value == "tk_0123456789" && set.targets.first?.clickURL == Self.click)
        #expect(set.targets.first?.redact("echo tk_0123456789") == "echo <redacted>")
    }
}
