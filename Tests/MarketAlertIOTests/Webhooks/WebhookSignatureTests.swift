import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

@Suite("Webhook signatures (Standard Webhooks)", .timeLimit(.minutes(1)))
struct WebhookSignatureTests {
    /// 32 bytes, serialized as the spec does.
    static let whsecSecret = "whsec_" + Data((0..<32).map { UInt8(($0 * 37 + 11) & 0xFF) }).base64EncodedString()
    static let rawSecret = "8c1f0e3b9a7d4c2e5f60718293a4b5c6"

    @Test("the published Standard Webhooks vector")
    func knownVector() throws {
        // Vector used across Standard Webhooks / Svix libraries' test suites.
        let key = try WebhookSigningKey(secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
        let signature = WebhookSignature.sign(
            id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: Data(#"{"test": 2432232314}"#.utf8), key: key)
        #expect(signature == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
    }

    @Test("secret spellings: whsec_ base64 (padded or not) is decoded, anything else is raw UTF-8")
    func secretParsing() throws {
        let padded = try WebhookSigningKey(secret: "whsec_AAECAwQ=")
        let unpadded = try WebhookSigningKey(secret: "whsec_AAECAwQ")
        #expect(padded == unpadded)
        #expect(padded.byteCount == 5)  // 00 01 02 03 04
        #expect(try WebhookSigningKey(secret: "not-base64-at-all").byteCount == 17)
        #expect(throws: WebhookSigningKey.ParseError.invalidBase64) { try WebhookSigningKey(secret: "whsec_!!notbase64") }
        #expect(throws: WebhookSigningKey.ParseError.empty) { try WebhookSigningKey(secret: "whsec_") }
        #expect(throws: WebhookSigningKey.ParseError.empty) { try WebhookSigningKey(secret: "") }
        #expect(!"\(padded)".contains("AAECAwQ"))
    }

    @Test("a sent notification is signed over id.timestamp.body; Python's hmac verifies it", arguments: [WebhookSignatureTests.whsecSecret, WebhookSignatureTests.rawSecret])
    func signedRequestVerifiesIndependently(secret: String) async throws {
        let harness = try await OutboxHarness()
        let key = try WebhookSigningKey(secret: secret)
        let outbox = harness.outbox([harness.target(key: key)])
        let run = Task { await outbox.run() }
        var arrivals = harness.receiver.arrivals.makeAsyncIterator()
        let event = SampleEvents.premium()

        try await outbox.deliver(event)
        let request = try await arrivals.expectNext()

        #expect(request.method == "POST")
        #expect(request.header("Content-Type") == "application/json")
        let id = try #require(request.header("webhook-id"))
        let timestamp = try #require(request.header("webhook-timestamp"))
        let signature = try #require(request.header("webhook-signature"))
        #expect(id == event.id)
        #expect(timestamp == String(Int(harness.clock.now().timeIntervalSince1970)))
        #expect(signature.hasPrefix("v1,"))
        #expect(try await WebhookSignatureCheck.isValid(secret: secret, id: id, timestamp: timestamp, header: signature, body: request.body))

        // The check can fail: one changed byte of the body, or another timestamp, does not verify.
        var tampered = request.body
        tampered[tampered.startIndex] = UInt8(ascii: " ")
        #expect(!(try await WebhookSignatureCheck.isValid(secret: secret, id: id, timestamp: timestamp, header: signature, body: tampered)))
        #expect(!(try await WebhookSignatureCheck.isValid(
            secret: secret, id: id, timestamp: String(Int(timestamp)! + 1), header: signature, body: request.body)))

        run.cancel()
        await run.value
        await harness.shutdown()
    }

    @Test("without secret_env: webhook-id and webhook-timestamp only, no signature")
    func unsignedRequest() async throws {
        let harness = try await OutboxHarness()
        let outbox = harness.outbox([harness.target()])
        let run = Task { await outbox.run() }
        var arrivals = harness.receiver.arrivals.makeAsyncIterator()
        let event = SampleEvents.fx()

        try await outbox.deliver(event)
        let request = try await arrivals.expectNext()

        #expect(request.header("webhook-id") == event.id)
        #expect(request.header("webhook-timestamp") != nil)
        #expect(request.header("webhook-signature") == nil)
        run.cancel()
        await run.value
        await harness.shutdown()
    }
}
