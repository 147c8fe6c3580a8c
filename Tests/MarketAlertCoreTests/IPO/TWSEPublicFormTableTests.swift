import Foundation
import MarketAlertCore
import Testing

@Suite("IPO TWSE publicForm table")
struct TWSEPublicFormTableTests {
    let calendar = MarketCalendar(timeZone: TimeZone(identifier: "Asia/Taipei") ?? .gmt)

    /// The real header, reordered, so only names can find the columns.
    static let fields = [
        "申購結束日", "證券代號", "取消公開抽籤 ", "承銷價(元)", "證券名稱", "抽籤日期", "申購開始日", "實際承銷價(元)",
        "發行市場", "承銷股數", "撥券日期(上市、上櫃日期)",
    ]

    static func row(
        code: String, name: String, start: String, end: String, lottery: String = "115/03/31", price: String = "102",
        final: String = "未訂出", shares: String = "1,378,000", market: String = "初上市", cancelled: String = ""
    ) -> [String] {
        [end, code, cancelled, price, name, lottery, start, final, market, shares, "115/04/08"]
    }

    func table(_ rows: [[String]], exclude: [String] = ["公債", "債"]) throws -> TWSEPublicFormTable.Result {
        try TWSEPublicFormTable.offerings(
            fields: Self.fields, rows: rows, source: "twse", calendar: calendar, excludeNamePatterns: exclude)
    }

    @Test func mapsColumnsByName() throws {
        let result = try table([Self.row(code: "4169", name: "泰宗", start: "115/03/25", end: "115/03/27")])
        #expect(result.issues.isEmpty && result.excluded == 0)
        let offering = try #require(result.offerings.first)
        #expect(offering.code == "4169" && offering.name == "泰宗" && offering.market == "初上市")
        #expect(offering.subscriptionStart?.iso == "2026-03-25")
        #expect(offering.subscriptionEnd?.iso == "2026-03-27")
        #expect(offering.lotteryDate?.iso == "2026-03-31")
        #expect(offering.listingDate?.iso == "2026-04-08")
        #expect(offering.offerPrice == Decimal(102))
        #expect(offering.finalPrice == nil)  // 未訂出
        #expect(offering.price == Decimal(102) && offering.priceIsProvisional)
        #expect(offering.shares == 1_378_000)
        #expect(offering.finalShares == nil)  // no such column in this header
        #expect(offering.drawCancelled == nil)
        #expect(offering.key == "ipo/twse/4169/2026-03-25")
        #expect(offering.timeZone == "Asia/Taipei" && offering.currency == "TWD")
    }

    @Test func unparsableDatesKeepTheRowAsUnknown() throws {
        let result = try table([
            Self.row(code: "4169", name: "泰宗", start: "115/02/30", end: "115/03/27"),
            Self.row(code: "3322", name: "建舜電", start: "115/03/25", end: "", lottery: "x"),
            Self.row(code: "6028", name: "公勝保經", start: "115/03/25", end: "115/03/20"),
        ])
        #expect(result.offerings.map(\.key) == ["ipo/twse/4169/unknown", "ipo/twse/3322/2026-03-25", "ipo/twse/6028/2026-03-25"])
        let day = try #require(CalendarDay(iso: "2026-03-26"))
        #expect(result.offerings.allSatisfy { $0.state(on: day) == .unknown })
        #expect(result.offerings[1].lotteryDate == nil)
        #expect(result.issues.map(\.row) == [1, 2, 3])
        #expect(result.issues.allSatisfy { $0.kept })
        #expect(result.issues[0].description.contains("115/02/30"))
    }

    @Test func badRowsAreReportedAndSkipped() throws {
        var short = Self.row(code: "4169", name: "泰宗", start: "115/03/25", end: "115/03/27")
        short.removeLast()
        let result = try table([
            short,
            Self.row(code: " ", name: "無代號", start: "115/03/25", end: "115/03/27"),
            Self.row(code: "7822", name: "倍利科", start: "115/03/18", end: "115/03/20"),
            Self.row(code: "7822", name: "倍利科", start: "115/03/18", end: "115/03/20"),
        ])
        #expect(result.offerings.map(\.code) == ["7822"])
        #expect(result.issues.map(\.row) == [1, 2, 4])
        #expect(result.issues.allSatisfy { !$0.kept })
    }

    @Test(arguments: ["77\n95", "7795\u{0}", "77\u{202E}95", "\u{2066}7795\u{2069}", "77\u{200B}95", "7", "7795-KY", "７７９５",
                      "1234567890123", "77 95", "ipo/twse/x"])
    func implausibleCodesAreReportedAndSkipped(code: String) throws {
        let result = try table([
            Self.row(code: code, name: "惡意", start: "115/03/25", end: "115/03/27"),
            Self.row(code: "4169", name: "泰宗", start: "115/03/25", end: "115/03/27"),
        ])
        #expect(result.offerings.map(\.key) == ["ipo/twse/4169/2026-03-25"])
        let issue = try #require(result.issues.first)
        #expect(result.issues.count == 1 && issue.row == 1 && !issue.kept && issue.code == nil)
        #expect(issue.description.contains("not a plausible code"))
        // The report itself carries no control or bidi character (it goes into a log line).
        #expect(issue.description.unicodeScalars.allSatisfy { $0.isASCII ? $0.value >= 0x20 && $0.value < 0x7F : $0.properties.generalCategory != .format })
    }

    @Test func plausibleCodesAreKept() throws {
        let codes = ["4169", "00940", "A151DA", "2887E", "6488"]
        let result = try table(codes.map { Self.row(code: $0, name: "名", start: "115/03/25", end: "115/03/27") })
        #expect(result.offerings.map(\.code) == codes)
        #expect(result.issues.isEmpty)
    }

    @Test func namesAndTextCellsAreCleanedAndCapped() throws {
        let hostile = "泰\u{202E}宗\n\u{0}第二行\u{200B}\t\u{2028}尾"
        let long = String(repeating: "長", count: 5000)
        let result = try table([
            Self.row(code: "4169", name: hostile, start: "115/03/25", end: "115/03/27", market: "初\u{202D}上市\r\n", cancelled: "\u{7}取消"),
            Self.row(code: "3322", name: long, start: "115/03/23", end: "115/03/25"),
            Self.row(code: "6028", name: "👨‍👩‍👧‍👦" + String(repeating: "é", count: 198) + "🇹🇼🇹🇼", start: "115/03/18", end: "115/03/20"),
        ])
        #expect(result.offerings.count == 3)
        #expect(result.offerings[0].name == "泰宗 第二行 尾")
        #expect(result.offerings[0].market == "初上市")
        #expect(result.offerings[0].drawCancelled == "取消")
        #expect(result.offerings[1].name.count == PublishedText.nameLimit)
        #expect(result.offerings[1].name.hasSuffix("長…"))
        // Cut at a grapheme boundary: the family emoji and the flags stay whole or go whole.
        let cut = result.offerings[2].name
        #expect(cut.count == PublishedText.nameLimit && cut.hasPrefix("👨‍👩‍👧‍👦") && cut.hasSuffix("é…"))
        #expect(!cut.unicodeScalars.contains { (0x1F1E6...0x1F1FF).contains($0.value) })  // no half flag
    }

    @Test func aHostileDateTextIsQuotedCleanInMessages() throws {
        let result = try table([Self.row(code: "4169", name: "泰宗", start: "115/03/25\u{202E}\n", end: "115\u{0}/03/27")])
        let offering = try #require(result.offerings.first)
        // Dates are parsed from the cell as published (a control character makes it unreadable), and quoted cleaned.
        #expect(offering.subscriptionStart == nil && offering.subscriptionEnd == nil && offering.key == "ipo/twse/4169/unknown")
        #expect(offering.subscriptionEndText == "115/03/27")
        #expect(result.issues.map(\.description) == [#"row 1 (4169): subscription dates "115/03/25" to "115/03/27" not understood; state unknown"#])
    }

    @Test func excludesByNamePattern() throws {
        let rows = [
            Self.row(code: "A151DA", name: "115央債甲04", start: "115/02/10", end: "115/02/23", market: "中央登錄公債"),
            Self.row(code: "8066", name: "來思達", start: "115/02/10", end: "115/02/23", market: "上櫃增資"),
        ]
        let result = try table(rows)
        #expect(result.offerings.map(\.code) == ["8066"])
        #expect(result.excluded == 1)
        #expect(try table(rows, exclude: []).offerings.count == 2)
    }

    @Test func missingRequiredColumnIsAnError() throws {
        #expect(throws: TWSEPublicFormTable.TableError.missingColumn("證券代號")) {
            try TWSEPublicFormTable.offerings(
                fields: ["證券名稱", "申購開始日", "申購結束日"], rows: [], source: "twse", calendar: calendar, excludeNamePatterns: [])
        }
    }

    @Test(arguments: [
        ("1,378,000", 1_378_000), ("1000", 1000), ("0", 0), (" 540,000 ", 540_000),
    ])
    func shareCounts(text: String, expected: Int) {
        #expect(TWSEPublicFormTable.shareCount(text) == expected)
    }

    @Test(arguments: ["未訂出", "", "1,37,000", "1,3780,00", ",000", "1,000,", "-5", "1.5", "１,000", "12345678901234567890123"])
    func notShareCounts(text: String) {
        #expect(TWSEPublicFormTable.shareCount(text) == nil)
    }

    @Test func prices() {
        #expect(TWSEPublicFormTable.price("11.13") == Decimal(string: "11.13"))
        #expect(TWSEPublicFormTable.price("98.654") == Decimal(string: "98.654"))
        #expect(TWSEPublicFormTable.price("未訂出") == nil)
        #expect(TWSEPublicFormTable.price("0") == nil)
        #expect(TWSEPublicFormTable.price("") == nil)
        #expect(TWSEPublicFormTable.price("NaN") == nil)
    }

    /// `yy` is the Gregorian year in Taipei, with the neighbouring year around the new year.
    @Test func queryYears() {
        #expect(TWSEPublicFormTable.queryYears(at: ipoUTC("2026-03-24T12:28:35Z"), calendar: calendar) == [2026])
        #expect(TWSEPublicFormTable.queryYears(at: ipoUTC("2025-12-30T02:00:00Z"), calendar: calendar) == [2025, 2026])
        // 2025-12-31 16:00 UTC is already 2026-01-01 in Taipei.
        #expect(TWSEPublicFormTable.queryYears(at: ipoUTC("2025-12-31T16:00:00Z"), calendar: calendar) == [2026, 2025])
        #expect(TWSEPublicFormTable.queryYears(at: ipoUTC("2026-11-30T15:59:59Z"), calendar: calendar) == [2026])
        #expect(TWSEPublicFormTable.queryYears(at: ipoUTC("2026-11-30T16:00:00Z"), calendar: calendar) == [2026, 2027])
    }
}
