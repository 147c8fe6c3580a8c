import Foundation
import MarketAlertCore
import MarketAlertTestSupport
import Testing

/// Issue #26 item 13 through the built daemon: OpenExchangeRates, the only FX provider, answers 401 with a
/// body that echoes the app id plainly and base64-encoded. The `source/openexchangerates` event (stdout and a
/// webhook) says `HTTP 401` and carries no part of the app id in any of those spellings.
@Suite(.serialized, .enabled(if: DaemonProcess.binaryExists, "needs the built marketalertd binary (swift build)"))
struct UpstreamErrorBodyIntegrationTests {
    /// Mixed case, so that no 6-character piece of it (or of its base64) turns up in an event by chance; its
    /// base64 has no `/` or `+`, which a JSON encoder might escape and so hide from a plain search.
    static let appID = "ZqXw7Kj2PmVr9TsY4NbLcD8hGfR3aEuW"

    /// Every 6-character piece of `text`.
    static func pieces(_ text: String) -> [String] {
        let characters = Array(text)
        guard characters.count >= 6 else { return [text] }
        return (0...(characters.count - 6)).map { String(characters[$0..<($0 + 6)]) }
    }

    /// The spellings of the app id an event must not contain: plain, base64 (with and without padding, as an
    /// `Authorization: Basic`-style echo), and every 6-character piece of each.
    static var forbidden: [String] {
        let base64 = Data(appID.utf8).base64EncodedString()
        let basic = Data((appID + ":").utf8).base64EncodedString()
        return [appID, base64, basic] + pieces(appID) + pieces(base64.trimmingCharacters(in: ["="]))
            + pieces(basic.trimmingCharacters(in: ["="]))
    }

    static func config(_ harness: DaemonHarness, webhook: String) -> String {
        let base = harness.apis.baseURL
        return """
            state_dir: \(harness.stateDirectory)
            exchanges:
              binance: { poll_interval: 250ms, timeout: 2s, base_url: "\(base)" }
              upbit:   { poll_interval: 250ms, timeout: 2s, base_url: "\(base)" }
            fx:
              poll_interval: 500ms
              max_age: 15m
              providers:
                - name: openexchangerates
                  base_url: "\(base)"
                  app_id_env: OXR_APP_ID
            premium:
              reference: USD
              max_quote_age: 30s
              rules:
                - name: kimchi
                  assets: [BTC]
                  exchanges: [upbit, binance]
                  quotes: [KRW, USDT]
                  levels:
                    - { pct: 3.0, severity: warning }
                  clear_pct: 2.5
            sinks:
              stdout: { format: json }
              journal: { enabled: false }
              webhooks: [{ name: hook, url: "\(webhook)", format: json, timeout: 2s }]
            source_alerts: { after_failures: 1, after_silence: 10m }
            """
    }

    @Test func anOXR401EchoingTheAppIDNeverReachesTheSourceEvent() async throws {
        let apis = try await MockMarketAPIs()
        let receiver = MockWebhookReceiver(on: apis.server, answer: .status(200))
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        let base64 = Data(Self.appID.utf8).base64EncodedString()
        let basic = Data((Self.appID + ":").utf8).base64EncodedString()
        // Open Exchange Rates' 401 envelope, made to echo what it was sent first (plainly, base64-encoded, and
        // as a Basic credential that a 120-character excerpt of the body would cut in the middle).
        apis.server.route(
            "/api/latest.json",
            response: .json(
                #"{"app_id":"\#(Self.appID)","token":"\#(base64)","basic":"\#(basic)","error":true,"status":401,"message":"invalid_app_id","description":"Invalid App ID provided."}"#,
                status: 401))
        apis.set("binance", "BTC", "100000.00")
        apis.set("upbit", "BTC", "140000000")
        try harness.writeConfig(Self.config(harness, webhook: receiver.url))
        let daemon = try harness.start(environment: ["OXR_APP_ID": Self.appID])
        defer { daemon.terminate() }
        try await daemon.waitUntilRunning()

        let line = try await daemon.waitForLine("the source/openexchangerates event") { line in
            guard let event = try? AlertEvent.makeDecoder().decode(AlertEvent.self, from: Data(line.utf8)) else { return false }
            return event.key == "source/openexchangerates" && event.status == "firing"
        }
        // The answer was the 401 with the echo, sent with the app id in its header.
        let request = try #require(apis.server.requests(to: "/api/latest.json").first)
        #expect(request.header("Authorization") == "Token \(Self.appID)")
        let event = try AlertEvent.makeDecoder().decode(AlertEvent.self, from: Data(line.utf8))
        let error = try #require(event.source?.error)
        #expect(error.contains("HTTP 401"), "\(error)")
        #expect(Self.forbidden.filter(line.contains).isEmpty, "the stdout event carries the app id: \(line)")
        #expect(Self.forbidden.filter(error.contains).isEmpty, "source.error carries the app id: \(error)")

        // The same event to the webhook, as clean.
        try await daemon.waitUntil("the webhook delivery") {
            receiver.deliveries.contains { String(decoding: $0.request.body, as: UTF8.self).contains("source/openexchangerates") }
        }
        for delivery in receiver.deliveries {
            let body = String(decoding: delivery.request.body, as: UTF8.self)
            #expect(Self.forbidden.filter(body.contains).isEmpty, "the webhook body carries the app id: \(body)")
        }
        #expect(try await SchemaValidator.validateAlertEvents(daemon.stdoutLines) == [])
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(10)) == 0)
    }
}
