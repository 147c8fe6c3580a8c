import Foundation
import MarketAlertCore
import Testing

@Suite("IPO MarketCalendar: ROC dates, days and midnights")
struct IPOMarketCalendarTests {
    let taipei = MarketCalendar(timeZoneIdentifier: "Asia/Taipei")

    /// ROC text → Gregorian day, worked out by hand (ROC year 1 is 1912).
    @Test(arguments: [
        ("113/01/02", "2024-01-02"),
        ("114/12/29", "2025-12-29"),
        ("114/12/31", "2025-12-31"),
        ("115/01/05", "2026-01-05"),
        ("115/03/31", "2026-03-31"),
        ("113/02/29", "2024-02-29"),  // 2024 is a leap year
        ("1/01/01", "1912-01-01"),
        ("89/12/31", "2000-12-31"),
        ("115/3/5", "2026-03-05"),
        (" 115/04/08 ", "2026-04-08"),
    ])
    func parsesROCDates(text: String, expected: String) throws {
        let calendar = try #require(taipei)
        #expect(calendar.parseROC(text)?.iso == expected)
    }

    @Test(arguments: [
        "114/02/29",  // 2025 is not a leap year
        "115/02/30", "115/13/01", "115/00/10", "115/01/32", "115/01/00", "0/01/01", "-1/01/01",
        "", "未訂出", "2026-01-05", "115/01", "115/01/05/01", "１１５/01/05", "115/1a/05", "115//05", "115/001/05",
    ])
    func rejectsOtherText(text: String) throws {
        let calendar = try #require(taipei)
        #expect(calendar.parseROC(text) == nil)
    }

    @Test func dayStartsAtLocalMidnightInTaipei() throws {
        let calendar = try #require(taipei)
        let day = try #require(calendar.parseROC("113/01/02"))
        // Taipei is UTC+8: 2024-01-02 00:00 local is 2024-01-01 16:00 UTC.
        #expect(calendar.startOfDay(day) == ipoUTC("2024-01-01T16:00:00Z"))
        #expect(calendar.day(of: ipoUTC("2024-01-01T15:59:59Z")).iso == "2024-01-01")
        #expect(calendar.day(of: ipoUTC("2024-01-01T16:00:00Z")).iso == "2024-01-02")
    }

    @Test func nextMidnightInTaipei() throws {
        let calendar = try #require(taipei)
        #expect(calendar.nextMidnight(after: ipoUTC("2024-01-01T02:00:00Z")) == ipoUTC("2024-01-01T16:00:00Z"))
        // Exactly at midnight, the next one is a day later.
        #expect(calendar.nextMidnight(after: ipoUTC("2024-01-01T16:00:00Z")) == ipoUTC("2024-01-02T16:00:00Z"))
        #expect(calendar.nextMidnight(after: ipoUTC("2024-12-31T15:59:59Z")) == ipoUTC("2024-12-31T16:00:00Z"))
    }

    /// New York: EST (UTC−5) until 2024-03-10 02:00, EDT (UTC−4) until 2024-11-03 02:00.
    @Test func nextMidnightAcrossDSTInNewYork() throws {
        let calendar = try #require(MarketCalendar(timeZoneIdentifier: "America/New_York"))
        #expect(calendar.nextMidnight(after: ipoUTC("2024-03-09T12:00:00Z")) == ipoUTC("2024-03-10T05:00:00Z"))
        // 2024-03-10 has 23 hours: the next midnight is EDT.
        #expect(calendar.nextMidnight(after: ipoUTC("2024-03-10T05:00:00Z")) == ipoUTC("2024-03-11T04:00:00Z"))
        // 2024-11-03 has 25 hours.
        #expect(calendar.nextMidnight(after: ipoUTC("2024-11-03T04:00:00Z")) == ipoUTC("2024-11-04T05:00:00Z"))
        let day = try #require(CalendarDay(iso: "2024-11-03"))
        #expect(calendar.startOfDay(day) == ipoUTC("2024-11-03T04:00:00Z"))
    }

    /// Havana moves its clocks at midnight (2024-03-10 00:00 CST → 01:00 CDT), so that day has no 00:00;
    /// it starts at 01:00 CDT = 05:00 UTC and ends at the next midnight, 00:00 CDT = 04:00 UTC.
    @Test func dayWithoutMidnightStartsAtItsFirstInstant() throws {
        let calendar = try #require(MarketCalendar(timeZoneIdentifier: "America/Havana"))
        let day = try #require(CalendarDay(iso: "2024-03-10"))
        #expect(calendar.startOfDay(day) == ipoUTC("2024-03-10T05:00:00Z"))
        #expect(calendar.nextMidnight(after: ipoUTC("2024-03-10T05:00:00Z")) == ipoUTC("2024-03-11T04:00:00Z"))
        #expect(calendar.day(of: ipoUTC("2024-03-10T05:00:00Z")).iso == "2024-03-10")
    }

    @Test func calendarDayText() throws {
        #expect(CalendarDay(iso: "2024-02-29")?.iso == "2024-02-29")
        #expect(CalendarDay(iso: "2025-02-29") == nil)
        #expect(CalendarDay(iso: "2025-1-01") == nil)
        let day = try #require(CalendarDay(iso: "2024-12-31"))
        #expect(day.adding(days: 1)?.iso == "2025-01-01")
        #expect(day.adding(days: -366)?.iso == "2023-12-31")
        let data = try JSONEncoder().encode([day])
        #expect(String(decoding: data, as: UTF8.self) == #"["2024-12-31"]"#)
        #expect(try JSONDecoder().decode([CalendarDay].self, from: data) == [day])
    }
}

/// An instant from RFC 3339 text (test input only).
func ipoUTC(_ text: String) -> Date {
    guard let date = Timestamp.parseRFC3339(text) else {
        Issue.record("bad test time \(text)")
        return .distantPast
    }
    return date
}
