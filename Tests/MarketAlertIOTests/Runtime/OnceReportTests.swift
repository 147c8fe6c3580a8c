import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// `marketalertd once` on the recorded TWSE rows (75 rows, fetched 2026-03-24; 45 after the bond exclusion):
/// open and upcoming windows with dates relative to today, closed ones only with `--all`.
@Suite("once report")
struct OnceReportTests {
    struct PublicForm: Decodable {
        var fields: [String]
        var data: [[String]]
    }

    static func statuses(at now: Date) throws -> [IPOOfferingStatus] {
        let form = try JSONDecoder().decode(PublicForm.self, from: Fixtures.data("twse/publicForm-reconstructed.json"))
        let calendar = try #require(MarketCalendar(timeZoneIdentifier: "Asia/Taipei"))
        let table = try TWSEPublicFormTable.offerings(
            fields: form.fields, rows: form.data, source: "twse", calendar: calendar, excludeNamePatterns: ["公債", "債"])
        return table.offerings.map { IPOOfferingStatus($0, state: $0.state(at: now, calendar: calendar)) }
    }

    static func ipoSection(at text: String, includeClosed: Bool = false, zones: [String] = ["UTC", "Asia/Seoul"]) throws -> [String] {
        let now = try #require(Timestamp.parseRFC3339(text))
        let report = OnceReport.render(
            premiums: [], reference: "USD", ipo: try statuses(at: now), health: [:], now: now, displayTimeZones: zones,
            includeClosed: includeClosed)
        let lines = report.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let header = try #require(lines.firstIndex(of: "IPO SUBSCRIPTIONS"), "\(report)")
        return Array(lines[(header + 1)...])
    }

    @Test func whenRecordedShowsTheOpenAndTheUpcomingWindowOnly() throws {
        // 2026-03-24 20:28 in Taipei: 3322 closes tomorrow, 4169 opens tomorrow; the 43 others are past.
        let lines = try Self.ipoSection(at: "2026-03-24T12:28:35Z")
        #expect(lines == [
            "  now 2026-03-24 12:28 UTC | 2026-03-24 21:28 Asia/Seoul",
            "  3322 建舜電 (上櫃增資): open, closes tomorrow, subscription 2026-03-23..2026-03-25 Asia/Taipei, price 11.13 TWD",
            "  4169 泰宗 (初上市): opens tomorrow, subscription 2026-03-25..2026-03-27 Asia/Taipei, price 102.00 TWD (not final)",
            "  (43 closed windows not shown; `once --all` lists them)",
        ])
    }

    @Test func relativeDaysFollowTheMarketsToday() throws {
        // 2026-03-20 23:30 UTC is already 2026-03-21 07:30 in Taipei.
        let early = try Self.ipoSection(at: "2026-03-20T23:30:00Z", zones: ["UTC"])
        #expect(early == [
            "  now 2026-03-20 23:30 UTC",
            "  3322 建舜電 (上櫃增資): opens in 2 days, subscription 2026-03-23..2026-03-25 Asia/Taipei, price 11.13 TWD",
            "  4169 泰宗 (初上市): opens in 4 days, subscription 2026-03-25..2026-03-27 Asia/Taipei, price 102.00 TWD (not final)",
            "  (43 closed windows not shown; `once --all` lists them)",
        ])
        let lastDay = try Self.ipoSection(at: "2026-03-25T01:00:00Z", zones: ["Asia/Taipei"])
        #expect(lastDay[1] == "3322 建舜電 (上櫃增資): last day today, subscription 2026-03-23..2026-03-25 Asia/Taipei, price 11.13 TWD".indented)
        #expect(lastDay[2] == "4169 泰宗 (初上市): opened today, closes in 2 days, subscription 2026-03-25..2026-03-27 Asia/Taipei, price 102.00 TWD (not final)".indented)
        let quiet = try Self.ipoSection(at: "2026-04-01T01:00:00Z", zones: [])
        #expect(quiet == [
            "  now 2026-04-01 01:00 UTC", "  no subscription window open or upcoming",
            "  (45 closed windows not shown; `once --all` lists them)",
        ])
    }

    @Test func allListsTheClosedWindowsLatestFirst() throws {
        let lines = try Self.ipoSection(at: "2026-03-24T12:28:35Z", includeClosed: true)
        #expect(lines.count == 1 + 45)
        #expect(lines[3] == "  6028 公勝保經 (初上櫃): closed 4 days ago, subscription 2026-03-18..2026-03-20 Asia/Taipei, price 72.00 TWD")
        #expect(lines.last == "  6949 沛爾生醫-創 (創新板上市現增): closed 83 days ago, subscription 2025-12-29..2025-12-31 Asia/Taipei, price 310.00 TWD")
        #expect(!lines.contains { $0.contains("not shown") })
    }
}

extension String {
    fileprivate var indented: String { "  " + self }
}
