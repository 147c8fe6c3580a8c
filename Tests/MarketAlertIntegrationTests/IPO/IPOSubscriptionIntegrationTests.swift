import Foundation
import MarketAlertCore
import MarketAlertTestSupport
import Testing

/// The built daemon against TWSE's recorded publicForm list served on 127.0.0.1, one real row's dates moved
/// so its subscription opens today (Asia/Taipei): the `opens` notification on stdout, not repeated after a
/// restart, and `marketalertd once` listing the offering as open.
///
/// The daemon reads the real clock, so "today" is the real day in Taipei; a run that straddles Taipei
/// midnight would see the window one day later than written and fail.
@Suite(.serialized, .enabled(if: DaemonProcess.binaryExists, "needs the built marketalertd binary (swift build)"))
struct IPOSubscriptionIntegrationTests {
    /// Row 1 of the recording: 泰宗 (4169), 初上市, offer price 102, final price 未訂出 (not fixed yet).
    static let code = "4169"

    @Test func anOfferingOpeningTodayIsNotifiedOnceAcrossARestartAndListedByOnce() async throws {
        let now = Date()
        let today = TWSEPublicFormPayload.iso(now)
        let end = TWSEPublicFormPayload.iso(try TWSEPublicFormPayload.adding(days: 2, to: now))
        var payload = try TWSEPublicFormPayload()
        #expect(try payload.cell(code: Self.code, field: "證券名稱") == "泰宗")
        #expect(try payload.cell(code: Self.code, field: "實際承銷價(元)") == "未訂出")
        try payload.openWindow(code: Self.code, start: now, days: 2)
        let apis = try await MockMarketAPIs()
        try apis.serveTWSE(payload)
        let harness = try DaemonHarness(apis: apis)
        defer { harness.cleanUp() }
        try harness.writeConfig(harness.ipoOnlyConfig())
        let key = "ipo/twse/\(Self.code)/\(today)"
        let summary = "IPO 4169 泰宗 (初上市) opens today \(today) (Asia/Taipei), closes \(end), price 102.00 TWD (not final)"

        let first = try harness.start()
        defer { first.terminate() }
        let event = try await first.waitForEvent("the opens notification") { $0.kind == .ipo }
        // The list is polled every 250 ms: five more polls, and still one notification.
        let polled = apis.twseRequests.count
        try await first.waitUntil("five more polls of the TWSE list") { apis.twseRequests.count >= polled + 5 }
        #expect(first.events.filter { $0.kind == .ipo }.count == 1, "\(first.stdoutLines)")
        #expect(event.key == key)
        #expect(event.status == "open")
        #expect(event.severity == .notice)
        #expect(event.summary == summary)
        let detail = try #require(event.ipo)
        #expect(detail.source == "twse")
        #expect(detail.code == Self.code)
        #expect(detail.name == "泰宗")
        #expect(detail.market == "初上市")
        #expect(detail.state == .open)
        #expect(detail.subscriptionStart == today)
        #expect(detail.subscriptionEnd == end)
        #expect(detail.lotteryDate == TWSEPublicFormPayload.iso(try TWSEPublicFormPayload.adding(days: 4, to: now)))
        #expect(detail.listingDate == TWSEPublicFormPayload.iso(try TWSEPublicFormPayload.adding(days: 14, to: now)))
        #expect(detail.price == Decimal(102))
        #expect(detail.shares == 1_378_000)
        #expect(detail.timeZone == "Asia/Taipei")
        #expect(try await SchemaValidator.validateAlertEvents(first.stdoutLines) == [])
        // TWSE's own query: JSON, for the Gregorian year in Taipei.
        let query = Set((apis.twseRequests.first?.query ?? "").split(separator: "&").map(String.init))
        #expect(query.isSuperset(of: ["response=json", "yy=\(TWSEPublicFormPayload.year(now))"]), "\(query)")
        first.signal(SIGTERM)
        #expect(await first.waitForExit(timeout: .seconds(5)) == 0)

        // Same state directory: the offering is still open, but `opens` was already sent.
        let second = try harness.start()
        defer { second.terminate() }
        try await second.waitUntilRunning()
        let restartedAt = apis.twseRequests.count
        try await second.waitUntil("five polls after the restart") { apis.twseRequests.count >= restartedAt + 5 }
        #expect(!second.events.contains { $0.kind == .ipo }, "repeated after restart: \(second.stdoutLines)")
        #expect(!second.stderrLines.contains { $0.contains("re-delivering") })
        second.signal(SIGTERM)
        #expect(await second.waitForExit(timeout: .seconds(5)) == 0)

        // `once` keeps no state: it prints the notification of a first evaluation and the table.
        let once = try await harness.once()
        #expect(once.status == 0, "\(once)")
        let lines = once.stdout.split(separator: "\n").map(String.init)
        let table = try #require(lines.firstIndex(of: "IPO SUBSCRIPTIONS"), "\(once.stdout)")
        let rows = lines[(table + 1)...].map { $0.trimmingCharacters(in: .whitespaces) }
        // Open and upcoming windows only, said relative to today; the other 74 recorded offerings are all past:
        // counted, not listed (`once --all` lists them).
        #expect(rows.count == 3, "\(rows)")
        #expect(rows.first?.hasPrefix("now ") == true, "\(rows)")
        #expect(rows.contains(
            "4169 泰宗 (初上市): opened today, closes in 2 days, subscription \(today)..\(end) Asia/Taipei, price 102.00 TWD (not final)"),
            "\(rows)")
        #expect(rows.last == "(\(payload.rowCount - 1) closed windows not shown; `once --all` lists them)", "\(rows)")
        let printed = lines.compactMap { try? AlertEvent.makeDecoder().decode(AlertEvent.self, from: Data($0.utf8)) }
        #expect(printed.map(\.key) == [key])
        #expect(printed.first?.summary == summary)

        // `once --all` lists the closed windows too.
        let all = try await harness.once(["--all"])
        #expect(all.status == 0, "\(all)")
        let allLines = all.stdout.split(separator: "\n").map(String.init)
        let allTable = try #require(allLines.firstIndex(of: "IPO SUBSCRIPTIONS"), "\(all.stdout)")
        #expect(allLines[(allTable + 1)...].filter { $0.contains(": closed ") }.count == payload.rowCount - 1, "\(all.stdout)")
    }
}
