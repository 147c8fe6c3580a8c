import Foundation
import MarketAlertCore
import MarketAlertTestSupport
import Testing

/// v3 routes through the built daemon: the first matching route and `continue`, a sink's own `kinds`, mute
/// and active windows in Asia/Seoul and Asia/Taipei computed around the test's own clock, and inhibition by a
/// failing exchange with its release. stdout gets everything, an inhibited notification with `inhibited_by`.
@Suite(.serialized, .enabled(if: DaemonProcess.binaryExists, "needs the built marketalertd binary (swift build)"))
struct RoutingIntegrationTests {
    /// "HH:MM" in `zone`, `minutes` from now.
    static func clock(_ zone: String, _ minutes: Int) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: zone) ?? .gmt
        let parts = calendar.dateComponents([.hour, .minute], from: Date().addingTimeInterval(Double(minutes) * 60))
        return String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
    }

    static func webhooks(_ receivers: [(String, MockWebhookReceiver, String)]) -> String {
        "[" + receivers.map { #"{ name: \#($0.0), url: "\#($0.1.url)", format: json, kinds: \#($0.2) }"# }.joined(separator: ", ") + "]"
    }

    @Test func firstMatchContinueKindsAndTimeWindowsAroundNow() async throws {
        let apis = try await MockMarketAPIs()
        let chat = MockWebhookReceiver(on: apis.server, path: "/chat", answer: .status(200))
        let phone = MockWebhookReceiver(on: apis.server, path: "/phone", answer: .status(200))
        let ops = MockWebhookReceiver(on: apis.server, path: "/ops", answer: .status(200))
        let pager = MockWebhookReceiver(on: apis.server, path: "/pager", answer: .status(200))
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        apis.set("binance", "BTC", "100000.00")
        apis.set("bybit", "BTC", "100000.00")
        apis.set("upbit", "BTC", "140000000")
        // Seoul: a night window around now (mutes phone). Taipei: a window around now (pager is active in it)
        // and one that starts in two hours (ops is active only then).
        let routing = """
            http:
              listen: "127.0.0.1:0"
            routes:
              - match: { kind: premium, rule: global }
                sinks: [chat, ops]
                continue: true
              - match: { exchange: bybit }
                sinks: [phone]
                mute_time_intervals: [around-now-kst]
                continue: true
              - match: { key: "premium/*/BTC" }
                sinks: [pager]
                active_time_intervals: [around-now-tpe]
                continue: true
              - match: { kind: premium }
                sinks: [ops]
                active_time_intervals: [later-tpe]
            time_intervals:
              - name: around-now-kst
                location: Asia/Seoul
                times: [{ start: "\(Self.clock("Asia/Seoul", -60))", end: "\(Self.clock("Asia/Seoul", 60))" }]
              - name: around-now-tpe
                location: Asia/Taipei
                times: [{ start: "\(Self.clock("Asia/Taipei", -60))", end: "\(Self.clock("Asia/Taipei", 60))" }]
              - name: later-tpe
                location: Asia/Taipei
                times: [{ start: "\(Self.clock("Asia/Taipei", 120))", end: "\(Self.clock("Asia/Taipei", 180))" }]
            """
        let hooks = Self.webhooks([
            ("chat", chat, "[premium]"), ("phone", phone, "[premium]"), ("ops", ops, "[source]"), ("pager", pager, "[premium]"),
        ])
        try harness.writeConfig(harness.standardConfig(webhooks: hooks, extra: routing))
        let daemon = try harness.start()
        defer { daemon.terminate() }
        try await daemon.waitUntilRunning()

        apis.set("bybit", "BTC", "100120.00")  // 0.12%: global warning (bybit high, binance low)
        let event = try await daemon.waitForEvent("global warning") { $0.key == "premium/global/BTC" && $0.severity == .warning }
        try await daemon.waitUntil("chat and pager got it", timeout: .seconds(10)) {
            chat.deliveries.count >= 1 && pager.deliveries.count >= 1
        }
        let api = try await DaemonAPI.connect(to: daemon)
        let metrics = try await api.metrics()
        #expect(chat.acceptedIDs == [event.id])   // route 1
        #expect(ops.deliveries.isEmpty)           // routes 1 and 4 name it, but ops takes only kind source (and 4 is not active)
        #expect(phone.deliveries.isEmpty)         // route 2: muted in Seoul now; not sent later
        #expect(pager.acceptedIDs == [event.id])  // route 3: active in Taipei now
        #expect(metrics.value("marketalertd_notifications_routed_total", ["sink": "chat", "kind": "premium"]) == 1)
        #expect(metrics.value("marketalertd_notifications_routed_total", ["sink": "pager", "kind": "premium"]) == 1)
        // Route 1 names ops, whose own kinds exclude premiums: nothing was sent to it, nothing counted.
        #expect(metrics.value("marketalertd_notifications_routed_total", ["sink": "ops", "kind": "premium"]) == nil)
        #expect(metrics.value("marketalertd_notifications_muted_total", ["kind": "premium", "reason": "time_interval"]) == 1)
        #expect(event.inhibitedBy == nil)
        // The routes in /api/v1/status and on the status page, each with whether its windows mute it now.
        let status = try await api.get("/api/v1/status")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(status.text.utf8)) as? [String: Any])
        let routes = try #require((document["routing"] as? [String: Any])?["routes"] as? [[String: Any]])
        #expect(routes.map { $0["muted_now"] as? Bool } == [false, true, false, true])
        #expect(routes.first?["match"] as? [String: String] == ["kind": "premium", "rule": "global"])
        let page = try await api.get("/").text
        #expect(page.contains(#"<tr data-route="1" data-muted="true">"#))
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0)
    }

    /// Every notification routed to the `chat` receiver, premiums inhibited by any firing source alert
    /// (`equal: [exchange]`: only by a source on either side of the premium).
    static func inhibitingRouting(equalExchange: Bool) -> String {
        """
        routes:
          - match: {}
            sinks: [chat]
        inhibit:
          - source: { kind: source }
            target: { kind: premium }
        """ + (equalExchange ? "\n    equal: [exchange]" : "")
    }

    /// BTC at 100,000 USD everywhere, the standard config with `inhibitingRouting` and a `chat` receiver.
    static func startInhibiting(
        _ harness: DaemonHarness, chat: MockWebhookReceiver, equalExchange: Bool
    ) async throws -> DaemonProcess {
        try await harness.startStandard(
            btc: ("100000.00", "100000.00", "140000000"), webhooks: webhooks([("chat", chat, "[premium, source]")]),
            extra: inhibitingRouting(equalExchange: equalExchange))
    }

    @Test func aFailingExchangeInhibitsItsPremiumsUntilItRecovers() async throws {
        let apis = try await MockMarketAPIs()
        let chat = MockWebhookReceiver(on: apis.server, path: "/chat", answer: .status(200))
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        let daemon = try await Self.startInhibiting(harness, chat: chat, equalExchange: true)
        defer { daemon.terminate() }

        try await daemon.waitUntil("every source answered") { daemon.stderrLines.contains { $0.contains("every source has answered") } }
        apis.override("binance", with: .status(500))  // binance fails: source/binance fires after 2 failures
        let down = try await daemon.waitForEvent("binance down") { $0.key == "source/binance" && $0.status == "firing" }
        apis.set("bybit", "BTC", "100120.00")  // binance's last quote is still fresh (30 s): a 0.12% premium
        let held = try await daemon.waitForEvent("inhibited premium") { $0.key == "premium/global/BTC" && $0.severity == .warning }
        #expect(held.inhibitedBy == ["source/binance"])
        try await daemon.waitUntil("the source alert delivered", timeout: .seconds(10)) { chat.acceptedIDs.contains(down.id) }
        #expect(!chat.acceptedIDs.contains(held.id), "an inhibited premium reached a routed sink")

        apis.override("binance", with: nil)  // binance recovers: the source resolves and the premium is released once
        let up = try await daemon.waitForEvent("binance up") { $0.key == "source/binance" && $0.status == "resolved" }
        try await daemon.waitUntil("the released premium", timeout: .seconds(10)) { chat.acceptedIDs.contains(held.id) }
        let bodies = try chat.deliveries.filter { $0.webhookID == held.id }.map {
            try AlertEvent.makeDecoder().decode(AlertEvent.self, from: $0.request.body)
        }
        #expect(bodies.count == 1)
        #expect(bodies.first?.inhibitedBy == nil, "the released notification is the premium itself")
        #expect(chat.acceptedIDs.contains(up.id))
        #expect(try await SchemaValidator.validateAlertEvents(daemon.stdoutLines) == [])
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0)
    }

    /// What the routes hold outlives the process: a source alert still firing when the daemon restarts
    /// (restored as firing, so not notified again) still holds back the premiums it inhibits.
    @Test func anInhibitionOutlivesARestart() async throws {
        let apis = try await MockMarketAPIs()
        let chat = MockWebhookReceiver(on: apis.server, path: "/chat", answer: .status(200))
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        do {
            let daemon = try await Self.startInhibiting(harness, chat: chat, equalExchange: false)
            defer { daemon.terminate() }
            try await daemon.waitUntil("every source answered") { daemon.stderrLines.contains { $0.contains("every source has answered") } }
            apis.override("upbit", with: .status(500))
            let down = try await daemon.waitForEvent("upbit down") { $0.key == "source/upbit" && $0.status == "firing" }
            try await daemon.waitUntil("the source alert delivered", timeout: .seconds(10)) { chat.acceptedIDs.contains(down.id) }
            daemon.signal(SIGTERM)
            #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0)
        }

        // The next run: upbit still fails; bybit now trades 0.12% over binance.
        apis.set("bybit", "BTC", "100120.00")
        let daemon = try harness.start()
        defer { daemon.terminate() }
        try await daemon.waitUntilRunning()
        let held = try await daemon.waitForEvent("inhibited premium") { $0.key == "premium/global/BTC" && $0.status == "firing" }
        #expect(held.inhibitedBy == ["source/upbit"])
        #expect(!daemon.stdoutLines.contains { $0.contains(#""key":"source/upbit""#) }, "the source alert was notified again")
        apis.override("upbit", with: nil)
        let up = try await daemon.waitForEvent("upbit up") { $0.key == "source/upbit" && $0.status == "resolved" }
        try await daemon.waitUntil("the released premium", timeout: .seconds(10)) { chat.acceptedIDs.contains(held.id) }
        #expect(chat.deliveries.filter { $0.webhookID == held.id }.count == 1, "released once")
        #expect(chat.acceptedIDs.contains(up.id))
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0)
    }
}
