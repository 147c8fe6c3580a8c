import Foundation
import MarketAlertCore
import MarketAlertTestSupport
import Testing

/// The status page of the built daemon, rendered by headless Chromium: the DOM it built shows the premium
/// table, alerts, silences, sources, FX and IPO windows from known state, and the layout fits a desktop
/// (1280×800) and a phone (390×844) viewport without sideways scrolling.
@Suite(.serialized, .enabled(if: DaemonProcess.binaryExists && Chromium.available, "needs the built binary and chromium (scripts/test installs it)"))
struct StatusPageIntegrationTests {
    static let extra = """
        ipo:
          sources:
            - { name: twse, base_url: "BASE", poll_interval: 250ms, timeout: 2s, time_zone: Asia/Taipei }
          notify: [opens, last_day]
        http:
          listen: "127.0.0.1:0"
        history:
          resolution: 1s
          retention: 1d
        """

    @Test func thePageShowsTheDaemonsStateAndFitsDesktopAndPhone() async throws {
        let now = Date()
        var payload = try TWSEPublicFormPayload()
        try payload.openWindow(code: "4169", start: now, days: 2)  // 泰宗: open today
        try payload.openWindow(code: "3322", start: try TWSEPublicFormPayload.adding(days: 5, to: now), days: 2)  // 建舜電: upcoming
        let apis = try await MockMarketAPIs()
        try apis.serveTWSE(payload)
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        apis.set("binance", "BTC", "100000.00")
        apis.set("bybit", "BTC", "100060.00")  // global: 0.06%, a notice
        apis.set("upbit", "BTC", "140000000")
        try harness.writeConfig(harness.standardConfig(extra: Self.extra.replacingOccurrences(of: "BASE", with: apis.baseURL)))
        let daemon = try harness.start()
        defer { daemon.terminate() }
        try await daemon.waitUntilRunning()
        let api = try await DaemonAPI.connect(to: daemon)
        try await daemon.waitForEvent("the notice") { $0.key == "premium/global/BTC" }
        try await daemon.waitForEvent("the IPO opening") { $0.kind == .ipo }
        let silence = try await api.silence(#"{"matchers":{"key":"premium/kimchi/*"},"duration":"2h","comment":"upbit wallet maintenance"}"#, token: nil)
        try await daemon.waitUntil("ready") { try await api.get("/readyz").status == 200 }
        try await daemon.waitUntil("history samples") { try await api.get("/api/v1/history?rule=global&asset=BTC").text.contains("max_pct") }

        // The HTML itself: one document, nothing external, no script.
        let page = try await api.get("/")
        #expect(page.status == 200)
        #expect(page.headers.first(name: "Content-Type") == "text/html; charset=utf-8")
        let html = page.text
        #expect(!html.contains("<script"))
        #expect(!html.contains("src="))
        #expect(!html.contains("href=\"http"))
        #expect(!html.contains("<link"))

        // The DOM Chromium built from it, at 1280×800.
        let dom = try await Chromium.dumpDOM(api.base + "/", width: 1280, height: 800)
        let today = TWSEPublicFormPayload.iso(now)
        for fragment in [
            #"<p id="state" class="badge ready" data-ready="true">ready</p>"#,
            #"<tr data-key="premium/global/BTC" data-state="firing-notice""#,
            #"<tr data-key="premium/kimchi/BTC" data-state="ok""#,
            #"<td data-label="High">bybit 100,060.00 USDT</td>"#,
            #"<tr data-key="premium/global/BTC" data-severity="notice""#,
            "<tr data-silence=\"\(silence)\" data-state=\"active\">",
            "upbit wallet maintenance",
            #"<tr data-source="binance" data-health="up""#,
            #"<tr data-source="bybit" data-health="up""#,
            #"<tr data-source="upbit" data-health="up""#,
            #"<tr data-source="dunamu" data-health="up""#,
            #"<tr data-source="twse" data-health="up""#,
            #"<tr data-source="openexchangerates" data-health="idle""#,  // the fallback, not needed
            #"<tr data-pair="USD/KRW" data-provider="dunamu">"#,
            "<tr data-ipo=\"ipo/twse/4169/\(today)\" data-state=\"open\"",
            "泰宗 (初上市)",
            #"data-state="upcoming""#,
            "建舜電",
            #"<td data-label="Last 24 h" class="spark"><svg class="spark""#,  // the 24 h sparkline, inline SVG
        ] {
            #expect(dom.contains(fragment), "missing \(fragment)")
        }
        // IPO windows open at local midnight in Taipei, shown in every display zone (UTC, Asia/Seoul).
        let opens = try #require(dom.range(of: "<tr data-ipo=\"ipo/twse/4169/\(today)\"").map { String(dom[$0.upperBound...].prefix(2000)) })
        let opensCell = try #require(opens.range(of: #"<td data-label="Opens">"#).map { String(opens[$0.upperBound...].prefix { $0 != "<" }) })
        #expect(opensCell.contains("16:00:00 UTC") && opensCell.contains("01:00:00 Asia/Seoul"), "\(opensCell)")

        // Layout, measured in Chromium inside a viewport of each size (page served same-origin as the probe).
        apis.server.route("/page", response: .init(headers: [("Content-Type", "text/html; charset=utf-8")], body: page.body))
        for (width, height, headerRow) in [(1280, 800, true), (390, 844, false)] {
            apis.server.route("/probe-\(width)", response: .init(
                headers: [("Content-Type", "text/html; charset=utf-8")],
                body: Data(Chromium.viewportProbe(pagePath: "/page", width: width, height: height).utf8)))
            let probe = try await Chromium.dumpDOM(apis.baseURL + "/probe-\(width)", width: max(width, 500) + 20, height: height + 20)
            let result = try Self.result(probe)
            #expect(result["width"] as? Int == width, "\(result)")
            #expect(result["scrollWidth"] as? Int == width, "sideways scrolling at \(width): \(result)")
            #expect((result["overflowing"] as? [String])?.isEmpty == true, "sticking out at \(width): \(result)")
            #expect(result["headerRow"] as? Bool == headerRow, "tables at \(width): \(result)")
            #expect(result["sections"] as? [String] == ["premium", "alerts", "silences", "sources", "fx", "ipo"])
        }

        // Screenshots (kept where MARKETALERTD_SCREENSHOTS points, e.g. docs/ for the README).
        let directory = ProcessInfo.processInfo.environment["MARKETALERTD_SCREENSHOTS"] ?? harness.directory.path
        let desktop = directory + "/status-page.png"
        let phone = directory + "/status-page-phone.png"
        try await Chromium.screenshot(api.base + "/", to: desktop, width: 1280, height: 800)
        try await Chromium.screenshot(apis.baseURL + "/probe-390", to: phone, width: 500, height: 844)
        #expect(try Self.pngSize(desktop) == (1280, 800))
        await api.shutdown()
    }

    /// `body[data-result]` of a probe's dumped DOM, as JSON.
    static func result(_ dom: String) throws -> [String: Any] {
        guard let start = dom.range(of: "data-result=\"") else { throw Chromium.Failed(description: "no result in \(dom.suffix(500))") }
        let raw = dom[start.upperBound...].prefix { $0 != "\"" }
        let json = raw.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
        return try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] ?? [:]
    }

    /// Width and height from a PNG's IHDR chunk.
    static func pngSize(_ path: String) throws -> (Int, Int) {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard data.count > 24, data.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else { return (0, 0) }
        func int(_ offset: Int) -> Int { data[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (int(16), int(20))
    }
}
