import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// Email through the outbox against a real SMTP server (aiosmtpd on 127.0.0.1, `SMTPTestServer`): plain,
/// STARTTLS, smtps, AUTH PLAIN and LOGIN, a 4xx then success, a 5xx (dropped and reported), a slow server
/// (the deadline on the manual clock, then a retry) and a non-ASCII subject and body, read back with Python's
/// own email parser.
@Suite("SMTP delivery", .serialized, .timeLimit(.minutes(2)))
struct SMTPDeliveryTests {
    static let password = "correct-horse-battery"

    static func target(_ server: SMTPTestServer, tls: SMTPTestServer.TLSMode = .none, login: Bool = false, timeout: Duration = .seconds(30)) -> EmailTarget {
        var settings = EmailSettings(name: "mail")
        settings.host = "127.0.0.1"
        settings.port = server.port
        settings.security = tls == .implicit ? .implicitTLS : .startTLSWhenOffered
        settings.from = EmailAddress(displayName: "marketalertd", address: "alerts@example.org")
        settings.to = [EmailAddress(address: "me@example.org"), EmailAddress(address: "desk@example.org")]
        settings.caFile = server.caFile
        settings.timeout = timeout
        return EmailTarget(settings: settings, credentials: login ? SMTPCredentials(username: "alice", password: password) : nil)
    }

    /// The accepted message's Subject, Message-ID and body as Python's email package reads them.
    static func pythonParse(_ message: String) async throws -> [String: String] {
        let script = """
            import sys, json, email, email.policy
            m = email.message_from_bytes(sys.stdin.buffer.read(), policy=email.policy.default)
            print(json.dumps({"subject": str(m["subject"]), "message_id": str(m["message-id"]), "body": m.get_content().replace("\\r\\n", "\\n"),
                              "charset": m.get_content_charset(), "date": str(m["date"])}))
            """
        let output = try await Python.run(script, stdin: Data(message.utf8))
        #expect(output.status == 0, "\(output.stderr)")
        return try JSONDecoder().decode([String: String].self, from: Data(output.stdout.utf8))
    }

    /// Delivers `event` through an outbox with one email target; returns the reports until it is done.
    static func deliver(_ event: AlertEvent, to target: EmailTarget, harness: OutboxHarness) async throws -> WebhookDeliveryReport {
        let outbox = WebhookOutbox(
            store: harness.store, deliveryTargets: [EmailDelivery(target, clock: harness.clock)], clock: harness.clock,
            logger: harness.logs.logger(), random: { 0.5 }, onReport: harness.reports.callback)
        try await outbox.deliver(event)
        let run = Task { await outbox.run() }
        var reports = harness.reports.stream.makeAsyncIterator()
        let report = try await reports.expectNext()
        run.cancel()
        await run.value
        return report
    }

    @Test("plain, STARTTLS and smtps, with AUTH PLAIN and LOGIN", arguments: [
        (SMTPTestServer.TLSMode.none, false, nil as String?), (.startTLS, true, nil), (.implicit, true, "LOGIN"), (.none, true, "LOGIN"),
    ])
    func deliveredOnce(tls: SMTPTestServer.TLSMode, login: Bool, only: String?) async throws {
        let server = try await SMTPTestServer.start(tls: tls, auth: login ? ("alice", Self.password) : nil, authOnly: only)
        defer { server.stop() }
        let harness = try await OutboxHarness()
        let event = SampleEvents.ipo()
        let report = try await Self.deliver(event, to: Self.target(server, tls: tls, login: login), harness: harness)
        #expect(report == .delivered(webhook: "mail", eventID: event.id, attempts: 1))
        let accepted = server.accepted
        #expect(accepted.count == 1)
        let first = try #require(accepted.first)
        #expect(first.tls == (tls != .none))
        #expect(first.auth == (login ? "alice" : nil))
        #expect(first.mailFrom == "alerts@example.org" && first.rcptTos == ["me@example.org", "desk@example.org"])
        let parsed = try await Self.pythonParse(try #require(first.message))
        #expect(parsed["subject"] == "IPO 7795 長廣 opens today")
        #expect(parsed["message_id"] == "<\(event.id)@example.org>")
        #expect(parsed["charset"] == "utf-8")
        #expect(parsed["body"] == WebhookBody.text(for: event) + "\n")
        #expect(!harness.logs.all.contains { $0.text.contains(Self.password) })
        await harness.shutdown()
    }

    @Test func aTransientRefusalIsRetriedWithTheSameMessageID() async throws {
        let server = try await SMTPTestServer.start(replies: [451, 250])
        defer { server.stop() }
        let harness = try await OutboxHarness()
        let event = SampleEvents.premium(summary: "BTC premium 3.5% >= 3%: upbit over binance\n.a line that starts with a dot")
        let outbox = WebhookOutbox(
            store: harness.store, deliveryTargets: [EmailDelivery(Self.target(server), clock: harness.clock)], clock: harness.clock,
            logger: harness.logs.logger(), random: { 0.5 }, onReport: harness.reports.callback)
        var reports = harness.reports.stream.makeAsyncIterator()
        try await outbox.deliver(event)
        let run = Task { await outbox.run() }
        let start = harness.clock.now()
        let retry = try await reports.expectNext()
        #expect(retry == .retrying(
            webhook: "mail", eventID: event.id, attempts: 1, nextAttemptAt: start.addingTimeInterval(1),
            error: "SMTP end of DATA answered 451 4.3.0 scripted refusal"))
        try await harness.clock.waitForSleeper(.webhookDelivery, at: start.addingTimeInterval(1))
        await harness.clock.advance(by: .seconds(1))
        #expect(try await reports.expectNext() == .delivered(webhook: "mail", eventID: event.id, attempts: 2))
        run.cancel()
        await run.value
        let accepted = server.accepted
        #expect(accepted.count == 1)
        let parsed = try await Self.pythonParse(try #require(accepted.first?.message))
        #expect(parsed["message_id"] == "<\(event.id)@example.org>")
        #expect(parsed["body"]?.contains("\n.a line that starts with a dot\n") == true)  // dot-stuffing undone by the server
        await harness.shutdown()
    }

    @Test func aPermanentRefusalIsDroppedAndReported() async throws {
        let server = try await SMTPTestServer.start(replies: [554, 250])
        defer { server.stop() }
        let harness = try await OutboxHarness()
        let event = SampleEvents.source()
        let report = try await Self.deliver(event, to: Self.target(server), harness: harness)
        #expect(report == .dropped(
            webhook: "mail", eventID: event.id, attempts: 1,
            reason: "permanent failure, not retried: SMTP end of DATA answered 554 5.7.1 scripted refusal"))
        #expect(server.accepted.isEmpty)
        #expect(try await harness.store.webhookOutboxCount(webhook: "mail") == 0)
        #expect(harness.logs.all.contains { $0.level == .error && $0.message.contains("dropped") })
        await harness.shutdown()
    }

    @Test func aWrongPasswordIsPermanentAndNeverLogged() async throws {
        let server = try await SMTPTestServer.start(auth: ("alice", "another-password-here"))
        defer { server.stop() }
        let harness = try await OutboxHarness()
        let event = SampleEvents.fx()
        let report = try await Self.deliver(event, to: Self.target(server, login: true), harness: harness)
        guard case .dropped(_, _, 1, let reason) = report else {
            Issue.record("expected a drop, got \(report)")
            return
        }
        #expect(reason.contains("AUTH PLAIN answered 535"))
        #expect(!harness.logs.all.contains { $0.text.contains(Self.password) })
        await harness.shutdown()
    }

    @Test func aRefusedRecipientIsLeftOutWhileTheOthersGetTheMessage() async throws {
        let server = try await SMTPTestServer.start(refuseRecipients: ["desk@example.org"])
        defer { server.stop() }
        let harness = try await OutboxHarness()
        let event = SampleEvents.premium()
        let outbox = WebhookOutbox(
            store: harness.store, deliveryTargets: [EmailDelivery(Self.target(server), clock: harness.clock, logger: harness.logs.logger())],
            clock: harness.clock, logger: harness.logs.logger(), random: { 0.5 }, onReport: harness.reports.callback)
        var reports = harness.reports.stream.makeAsyncIterator()
        try await outbox.deliver(event)
        let run = Task { await outbox.run() }
        #expect(try await reports.expectNext() == .delivered(webhook: "mail", eventID: event.id, attempts: 1))
        run.cancel()
        await run.value
        #expect(server.accepted.map(\.rcptTos) == [["me@example.org"]])
        #expect(harness.logs.all.contains { $0.level == .warning && $0.message.contains("not for desk@example.org") })
        await harness.shutdown()
    }

    @Test func everyRecipientRefusedIsPermanent() async throws {
        let server = try await SMTPTestServer.start(refuseRecipients: ["me@example.org", "desk@example.org"])
        defer { server.stop() }
        let harness = try await OutboxHarness()
        let event = SampleEvents.premium()
        let report = try await Self.deliver(event, to: Self.target(server), harness: harness)
        #expect(report == .dropped(
            webhook: "mail", eventID: event.id, attempts: 1, reason: "permanent failure, not retried: SMTP RCPT TO answered 550 5.1.1 no such user"))
        #expect(server.accepted.isEmpty)
        await harness.shutdown()
    }

    @Test func anUntrustedCertificateSendsNothingAndIsRetried() async throws {
        let server = try await SMTPTestServer.start(tls: .startTLS, auth: ("alice", Self.password))
        defer { server.stop() }
        let harness = try await OutboxHarness()
        var target = Self.target(server, tls: .startTLS, login: true)
        target.settings.caFile = nil  // the system's roots: the self-signed certificate is not trusted
        let event = SampleEvents.fx()
        let report = try await Self.deliver(event, to: target, harness: harness)
        guard case .retrying(_, _, 1, _, let error) = report else {
            Issue.record("expected a retry, got \(report)")
            return
        }
        #expect(error.hasPrefix("SMTP "), "\(error)")
        #expect(server.accepted.isEmpty && !server.events().contains { $0.event == "data" })
        #expect(try await harness.store.webhookOutboxCount(webhook: "mail") == 1)
        await harness.shutdown()
    }

    @Test func aSlowServerTimesOutOnTheClockAndTheRetryIsDelivered() async throws {
        let server = try await SMTPTestServer.start(slowFirst: 1, slowSeconds: 60)
        defer { server.stop() }
        let harness = try await OutboxHarness()
        let event = SampleEvents.premium()
        let outbox = WebhookOutbox(
            store: harness.store, deliveryTargets: [EmailDelivery(Self.target(server, timeout: .seconds(20)), clock: harness.clock)],
            clock: harness.clock, logger: harness.logs.logger(), random: { 0.5 }, onReport: harness.reports.callback)
        var reports = harness.reports.stream.makeAsyncIterator()
        try await outbox.deliver(event)
        let run = Task { await outbox.run() }
        let start = harness.clock.now()
        try await server.waitFor("the first DATA") { $0.event == "data" && $0.n == 1 }
        try await harness.clock.waitForSleeper(.smtpDeadline, at: start.addingTimeInterval(20))
        await harness.clock.advance(by: .seconds(20))
        #expect(try await reports.expectNext() == .retrying(
            webhook: "mail", eventID: event.id, attempts: 1, nextAttemptAt: start.addingTimeInterval(21), error: "SMTP no answer within 20s"))
        try await harness.clock.waitForSleeper(.webhookDelivery, at: start.addingTimeInterval(21))
        await harness.clock.advance(by: .seconds(1))
        #expect(try await reports.expectNext() == .delivered(webhook: "mail", eventID: event.id, attempts: 2))
        #expect(server.accepted.count == 1)
        run.cancel()
        await run.value
        await harness.shutdown()
    }
}
