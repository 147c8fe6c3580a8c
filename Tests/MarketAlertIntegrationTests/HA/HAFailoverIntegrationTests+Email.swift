import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// Email under HA: the one outbox holds email as it holds webhooks, in the shared database and fenced by the
/// lease. An email the leader could not send (the server refused it for now) is sent by the instance that
/// takes over, once, with its original Message-ID; a standby sends none. In the failover suite: one PostgreSQL
/// pair at a time.
extension HAFailoverIntegrationTests {
    @Test func anEmailLeftQueuedByAKilledLeaderIsSentOnceByTheNext() async throws {
        let smtp = try await SMTPTestServer.start()
        defer { smtp.stop() }
        try smtp.refuse(with: 451)  // every attempt refused for now (a transient refusal: retried)
        let email = """

              email:
                - { name: mail, smtp_url: "smtp://127.0.0.1:\(smtp.port)", from: "alerts@example.org", to: ["me@example.org"], kinds: [premium], timeout: 5s }
            """
        let pair = try await HAPair(sinks: email)
        let (a, b) = try await pair.startBoth()
        defer { a.terminate(); b.terminate() }

        pair.apis.set("bybit", "BTC", "100060.00")  // 0.06% ≥ 0.05: notice
        let notice = try await a.waitForEvent("a's notice") { $0.key == "premium/global/BTC" && $0.severity == .notice }
        try await smtp.waitFor("a's refused attempt") { $0.event == "refused" && $0.code == 451 }
        #expect(b.events.isEmpty, "a standby notifies nothing")

        a.signal(SIGKILL)
        _ = await a.waitForExit(timeout: .seconds(5))
        try smtp.refuse(with: nil)
        try await b.waitForLine("b to take over", stderr: true, timeout: .seconds(10)) { $0.contains("this instance leads now") }
        try await smtp.waitFor("the email accepted after the takeover", timeout: .seconds(15)) { $0.event == "accepted" }
        try await b.waitUntil("the webhook delivered too") { pair.receiver.acceptedIDs.contains(notice.id) }
        // Ten more polls: nothing sent twice, nothing notified again.
        let polled = pair.apis.server.requests(to: "/api/v3/ticker/24hr").count
        try await b.waitUntil("ten more polls") { pair.apis.server.requests(to: "/api/v3/ticker/24hr").count >= polled + 10 }
        let accepted = smtp.accepted
        #expect(accepted.count == 1, "\(accepted.count) emails accepted")
        let message = try #require(accepted.first?.message)
        #expect(message.contains("\r\nMessage-ID: <\(notice.id)@example.org>\r\n"), "the email is a's notice, with its id")
        #expect(!b.events.contains { $0.key == "premium/global/BTC" && $0.severity == .notice }, "what a decided is not notified again")
        b.terminate()
        await pair.cleanUp()
    }
}
