import Foundation
import MarketAlertCore
import Testing

/// Alertmanager-style time intervals read in their own zone: wrap at midnight, weekday ranges, negative days of
/// the month, and DST (a window in New York local time moves with the wall clock).
@Suite struct TimeWindowTests {
    private func utc(_ text: String) throws -> Date {
        try #require(ISO8601DateFormatter().date(from: text))
    }

    private func zone(_ id: String) throws -> TimeZone { try #require(TimeZone(identifier: id)) }

    @Test func aNightWindowInSeoulWrapsMidnightAndEndsExclusive() throws {
        let night = TimeWindow(
            name: "night", location: try zone("Asia/Seoul"),
            entries: [TimeWindowEntry(times: [ClockRange(start: 22 * 60, end: 7 * 60)])])
        // Seoul is UTC+9 (no DST): 22:00 KST = 13:00 UTC; 07:00 KST = 22:00 UTC.
        #expect(night.isActive(at: try utc("2026-11-26T12:59:00Z")) == false)
        #expect(night.isActive(at: try utc("2026-11-26T13:00:00Z")) == true)
        #expect(night.isActive(at: try utc("2026-11-26T15:00:00Z")) == true)   // 00:00 KST
        #expect(night.isActive(at: try utc("2026-11-26T21:59:59Z")) == true)   // 06:59:59 KST
        #expect(night.isActive(at: try utc("2026-11-26T22:00:00Z")) == false)  // 07:00 KST: end is exclusive
    }

    @Test func taiwanMarketDaysAreWeekdaysInTaipei() throws {
        let market = TimeWindow(
            name: "tw", location: try zone("Asia/Taipei"),
            entries: [TimeWindowEntry(times: [ClockRange(start: 8 * 60, end: 18 * 60)], weekdays: [1...5])])
        // 2026-11-27 is a Friday; 08:00 Taipei (UTC+8) = 00:00 UTC.
        #expect(market.isActive(at: try utc("2026-11-27T00:00:00Z")) == true)
        #expect(market.isActive(at: try utc("2026-11-26T23:59:00Z")) == false)  // 07:59 Friday in Taipei
        // Saturday 2026-11-28 10:00 Taipei.
        #expect(market.isActive(at: try utc("2026-11-28T02:00:00Z")) == false)
        // Monday 2026-11-30 17:59 Taipei.
        #expect(market.isActive(at: try utc("2026-11-30T09:59:00Z")) == true)
    }

    @Test func aWindowFollowsTheWallClockAcrossDST() throws {
        let opening = TimeWindow(
            name: "ny-open", location: try zone("America/New_York"),
            entries: [TimeWindowEntry(times: [ClockRange(start: 9 * 60 + 30, end: 10 * 60)])])
        // Before the March 2026 change (EST, UTC-5): 09:30 local = 14:30 UTC.
        #expect(opening.isActive(at: try utc("2026-03-06T14:30:00Z")) == true)
        #expect(opening.isActive(at: try utc("2026-03-06T13:30:00Z")) == false)
        // After it (EDT, UTC-4, from 2026-03-08): 09:30 local = 13:30 UTC.
        #expect(opening.isActive(at: try utc("2026-03-09T13:30:00Z")) == true)
        #expect(opening.isActive(at: try utc("2026-03-09T14:30:00Z")) == false)
    }

    @Test func negativeDaysCountFromTheMonthsEndAndWeekdayRangesWrap() throws {
        let monthEnd = TimeWindow(name: "end", entries: [TimeWindowEntry(daysOfMonth: [-2 ... -1])])
        #expect(monthEnd.isActive(at: try utc("2026-02-27T12:00:00Z")) == true)   // February 2026 has 28 days
        #expect(monthEnd.isActive(at: try utc("2026-02-26T12:00:00Z")) == false)
        #expect(monthEnd.isActive(at: try utc("2026-03-30T12:00:00Z")) == true)
        #expect(monthEnd.isActive(at: try utc("2026-03-29T12:00:00Z")) == false)
        // friday:monday is stored as 5...8 and covers Fri, Sat, Sun and Mon.
        let weekend = TimeWindow(name: "long-weekend", entries: [TimeWindowEntry(weekdays: [5...8])])
        #expect(weekend.isActive(at: try utc("2026-11-29T12:00:00Z")) == true)    // Sunday
        #expect(weekend.isActive(at: try utc("2026-11-30T12:00:00Z")) == true)    // Monday
        #expect(weekend.isActive(at: try utc("2026-12-01T12:00:00Z")) == false)   // Tuesday
    }

    @Test func entriesAreOredAndFieldsWithinAnEntryAreAnded() throws {
        let window = TimeWindow(
            name: "mixed",
            entries: [
                TimeWindowEntry(months: [12...12], years: [2026...2026]),
                TimeWindowEntry(times: [ClockRange(start: 0, end: 60)]),
            ])
        #expect(window.isActive(at: try utc("2026-12-15T12:00:00Z")) == true)   // first entry
        #expect(window.isActive(at: try utc("2027-12-15T12:00:00Z")) == false)  // wrong year, not 00:xx
        #expect(window.isActive(at: try utc("2027-12-15T00:30:00Z")) == true)   // second entry
    }

    @Test func theNextCheckIsTheNextMinuteBoundary() throws {
        #expect(TimeWindow.nextMinute(after: try utc("2026-11-26T12:00:00Z")) == (try utc("2026-11-26T12:01:00Z")))
        #expect(TimeWindow.nextMinute(after: try utc("2026-11-26T12:00:59Z")) == (try utc("2026-11-26T12:01:00Z")))
    }
}
