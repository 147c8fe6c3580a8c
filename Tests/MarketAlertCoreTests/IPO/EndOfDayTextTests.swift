import Foundation
import MarketAlertCore
import Testing

/// The text of TWSE's and TPEx's end-of-day tables, and when they are polled.
@Suite("IPO end-of-day text and schedule")
struct EndOfDayTextTests {
    let calendar = MarketCalendar(timeZone: TimeZone(identifier: "Asia/Taipei") ?? .gmt)

    @Test(arguments: [("1,234.50", "1234.5"), ("2,385.00", "2385"), ("38.07", "38.07"), ("72", "72"), ("1,010.25", "1010.25")])
    func pricesWithSeparatorsAreExact(text: String, expected: String) {
        #expect(EndOfDayText.price(text) == Decimal(string: expected, locale: nil))
    }

    @Test(arguments: ["--", "---", "----", "", " ", "0", "0.00", "-1", "+3.12", "1,23.4", "12,3456", "1.2.3", "NaN", "1e5", "１２"])
    func dashesAndJunkAreNoPrice(text: String) {
        #expect(EndOfDayText.price(text) == nil)
    }

    @Test func rocCompactDates() {
        #expect(EndOfDayText.rocCompactDate("1150731", calendar: calendar)?.iso == "2026-07-31")
        #expect(EndOfDayText.rocCompactDate("1141229", calendar: calendar)?.iso == "2025-12-29")
        #expect(EndOfDayText.rocCompactDate("991231", calendar: calendar)?.iso == "2010-12-31")
        #expect(EndOfDayText.rocCompactDate("1150230", calendar: calendar) == nil)
        #expect(EndOfDayText.rocCompactDate("115/07/31", calendar: calendar) == nil)
        #expect(EndOfDayText.gregorianCompactDate("20260116")?.iso == "2026-01-16")
        #expect(EndOfDayText.gregorianCompactDate("2026011") == nil)
    }

    /// 17:00 in Taipei is 09:00 UTC. 2026-03-10 is a Tuesday.
    @Test func pollsOncePerWeekdayAfterTheClose() throws {
        let schedule = EndOfDaySchedule(timeZone: calendar.timeZone, hour: 17)
        let morning = try #require(ISO8601DateFormatter().date(from: "2026-03-10T02:00:00Z"))  // Tue 10:00 local
        #expect(schedule.next(after: morning) == ISO8601DateFormatter().date(from: "2026-03-10T09:00:00Z"))
        let evening = try #require(ISO8601DateFormatter().date(from: "2026-03-10T09:00:00Z"))  // exactly 17:00
        #expect(schedule.next(after: evening) == ISO8601DateFormatter().date(from: "2026-03-11T09:00:00Z"))
        let friday = try #require(ISO8601DateFormatter().date(from: "2026-03-13T10:00:00Z"))  // Fri 18:00 local
        #expect(schedule.next(after: friday) == ISO8601DateFormatter().date(from: "2026-03-16T09:00:00Z"))  // Monday
    }
}
