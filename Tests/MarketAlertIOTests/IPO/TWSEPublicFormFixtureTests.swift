import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// The recorded `yy=2026` answer (`twse/publicForm-reconstructed.json`, 75 real rows, 30 of them bonds).
@Suite("IPO TWSE publicForm recorded payload")
struct TWSEPublicFormFixtureTests {
    let calendar = MarketCalendar(timeZone: IPOTestKit.taipei)

    func parse(exclude: [String] = ["公債", "債"]) throws -> TWSEPublicFormTable.Result {
        var settings = IPOSourceSettings(name: "twse", baseURL: try #require(URL(string: "http://127.0.0.1:1")))
        settings.timeZone = "Asia/Taipei"
        let clock = ManualClock(now: IPOTestKit.instant("2026-03-24T12:28:35Z"))
        let source = TWSEPublicFormSource(
            settings: settings, calendar: calendar, excludeNamePatterns: exclude, fetcher: IPOTestKit.fetcher(clock))
        return try source.parse(try Fixtures.data("twse/publicForm-reconstructed.json"))
    }

    /// Worked out by hand from the ROC text (ROC 114 = 2025, 115 = 2026):
    /// code → (start, end, lottery, listing, offer price, final price, shares).
    static let expected: [String: (String, String, String, String, String, String?, Int)] = [
        "4169": ("2026-03-25", "2026-03-27", "2026-03-31", "2026-04-08", "102", nil, 1_378_000),  // 未訂出
        "3322": ("2026-03-23", "2026-03-25", "2026-03-27", "2026-04-08", "11.13", "11.13", 1_360_000),
        "7811": ("2026-03-13", "2026-03-17", "2026-03-19", "2026-03-25", "95", "93.33", 905_000),
        "6908": ("2026-03-13", "2026-03-17", "2026-03-19", "2026-03-25", "38.66", "38.66", 437_000),
        "8066": ("2026-02-10", "2026-02-23", "2026-02-25", "2026-03-06", "20", "20", 595_000),
        "5457": ("2026-02-24", "2026-02-26", "2026-03-03", "2026-03-11", "33", "33", 1_980_000),
        "7795": ("2026-01-06", "2026-01-08", "2026-01-12", "2026-01-16", "125", "125", 2_520_000),
        "3543": ("2026-01-02", "2026-01-06", "2026-01-08", "2026-01-16", "35", "35", 1_786_000),
        "6949": ("2025-12-29", "2025-12-31", "2026-01-05", "2026-01-13", "310", "310", 510_000),
    ]

    @Test func rowsMatchDatesWorkedOutByHand() throws {
        let result = try parse()
        let byCode = Dictionary(result.offerings.map { ($0.code, $0) }, uniquingKeysWith: { first, _ in first })
        for (code, row) in Self.expected {
            let offering = try #require(byCode[code], "missing \(code)")
            #expect(offering.subscriptionStart?.iso == row.0, "\(code) start")
            #expect(offering.subscriptionEnd?.iso == row.1, "\(code) end")
            #expect(offering.lotteryDate?.iso == row.2, "\(code) lottery")
            #expect(offering.listingDate?.iso == row.3, "\(code) listing")
            #expect(offering.offerPrice == Decimal(string: row.4), "\(code) price")
            #expect(offering.finalPrice == row.5.flatMap { Decimal(string: $0) }, "\(code) final price")
            #expect(offering.shares == row.6 && offering.finalShares == row.6, "\(code) shares")
        }
        let peier = try #require(byCode["6949"])
        #expect(peier.name == "沛爾生醫-創" && peier.market == "創新板上市現增")
        #expect(peier.key == "ipo/twse/6949/2025-12-29")
        #expect(byCode["4169"]?.priceIsProvisional == true)
        #expect(byCode["7811"]?.price == Decimal(string: "93.33"))
    }

    /// Every kept row, checked against its own ROC text by string arithmetic (not by the parser).
    @Test func everyRowsDatesAgreeWithItsROCText() throws {
        struct Raw: Decodable {
            var fields: [String]
            var data: [[String]]
        }
        let raw = try JSONDecoder().decode(Raw.self, from: Fixtures.data("twse/publicForm-reconstructed.json"))
        let column = { (name: String) throws -> Int in try #require(raw.fields.firstIndex(of: name)) }
        let code = try column("證券代號"), start = try column("申購開始日"), end = try column("申購結束日"), lottery = try column("抽籤日期")
        func gregorian(_ roc: String) -> String? {
            let parts = roc.split(separator: "/")
            guard parts.count == 3, let year = Int(parts[0]) else { return nil }
            return "\(year + 1911)-\(parts[1])-\(parts[2])"
        }
        let result = try parse()
        #expect(result.offerings.count == 45)
        for offering in result.offerings {
            let row = try #require(raw.data.first { $0[code] == offering.code })
            #expect(offering.subscriptionStart?.iso == gregorian(row[start]), "\(offering.code)")
            #expect(offering.subscriptionEnd?.iso == gregorian(row[end]), "\(offering.code)")
            #expect(offering.lotteryDate?.iso == gregorian(row[lottery]), "\(offering.code)")
            #expect(offering.window != nil, "\(offering.code)")
        }
    }

    @Test func bondsAreFilteredByNamePatterns() throws {
        let result = try parse()
        #expect(result.excluded == 30)
        #expect(result.issues.isEmpty)
        #expect(result.offerings.allSatisfy { !$0.code.hasPrefix("A15") && $0.market != "中央登錄公債" })
        #expect(Set(result.offerings.map(\.key)).count == 45)
        let unfiltered = try parse(exclude: [])
        #expect(unfiltered.offerings.count == 75 && unfiltered.excluded == 0)
    }

    /// At the moment the payload was recorded (2026-03-24 20:28 in Taipei).
    @Test func statesWhenRecorded() throws {
        let now = IPOTestKit.instant("2026-03-24T12:28:35Z")
        let states = Dictionary(try parse().offerings.map { ($0.code, $0.state(at: now, calendar: calendar)) }, uniquingKeysWith: { a, _ in a })
        #expect(states["4169"] == .upcoming)  // 03-25 … 03-27
        #expect(states["3322"] == .open)  // 03-23 … 03-25
        #expect(states["6028"] == .closed)  // ended 03-20
        #expect(states.values.filter { $0 == .closed }.count == 43)
    }

    @Test func anUnparsableDateGivesUnknown() throws {
        var text = try Fixtures.string("twse/publicForm-reconstructed.json")
        // 泰宗's start, 115/03/25, becomes a day February does not have.
        let original = #""4169","初上市","115/03/25""#
        #expect(text.components(separatedBy: original).count == 2)
        text = text.replacingOccurrences(of: original, with: #""4169","初上市","115/02/30""#)
        var settings = IPOSourceSettings(name: "twse", baseURL: try #require(URL(string: "http://127.0.0.1:1")))
        settings.timeZone = "Asia/Taipei"
        let source = TWSEPublicFormSource(
            settings: settings, calendar: calendar, excludeNamePatterns: ["債"],
            fetcher: IPOTestKit.fetcher(ManualClock(now: .distantPast)))
        let result = try source.parse(Data(text.utf8))
        let taizong = try #require(result.offerings.first { $0.code == "4169" })
        #expect(taizong.subscriptionStart == nil && taizong.key == "ipo/twse/4169/unknown")
        #expect(taizong.state(at: IPOTestKit.instant("2026-03-26T04:00:00Z"), calendar: calendar) == .unknown)
        #expect(result.offerings.count == 45)
        #expect(result.issues.count == 1 && result.issues.first?.kept == true)
    }
}
