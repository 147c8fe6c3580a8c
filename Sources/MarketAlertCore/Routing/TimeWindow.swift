import Foundation

/// A named time interval (`time_intervals` entry), as Alertmanager's `time_intervals`: one or more entries (ORed), each a conjunction of
/// clock times, weekdays, days of the month, months and years, all read in `location` (an IANA zone, so DST
/// moves the interval with the wall clock). Minute resolution: whether an interval is active can only change on
/// a minute boundary.
package struct TimeWindow: Sendable, Equatable {
    package var name: String
    /// The IANA zone the entries are read in (default UTC).
    package var location: TimeZone
    package var entries: [TimeWindowEntry]

    package init(name: String, location: TimeZone = TimeZone(identifier: "UTC") ?? .current, entries: [TimeWindowEntry]) {
        self.name = name
        self.location = location
        self.entries = entries
    }

    /// True when any entry contains `instant` (read in `location`).
    package func isActive(at instant: Date) -> Bool {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = location
        let parts = calendar.dateComponents([.year, .month, .day, .weekday, .hour, .minute], from: instant)
        guard let year = parts.year, let month = parts.month, let day = parts.day, let weekday = parts.weekday,
              let hour = parts.hour, let minute = parts.minute
        else { return false }
        let daysInMonth = calendar.range(of: .day, in: .month, for: instant)?.count ?? 31
        let local = LocalMoment(
            year: year, month: month, day: day, daysInMonth: daysInMonth, weekday: weekday - 1,
            minuteOfDay: hour * 60 + minute)
        return entries.contains { $0.contains(local) }
    }

    /// The first minute boundary (UTC) after `instant`: the earliest moment the interval's state can change.
    package static func nextMinute(after instant: Date) -> Date {
        let seconds = instant.timeIntervalSince1970
        return Date(timeIntervalSince1970: (seconds / 60).rounded(.down) * 60 + 60)
    }
}

/// A wall-clock moment in an interval's zone. `weekday` is 0 for Sunday … 6 for Saturday (Alertmanager's).
package struct LocalMoment: Sendable, Equatable {
    package var year: Int
    package var month: Int
    package var day: Int
    package var daysInMonth: Int
    package var weekday: Int
    package var minuteOfDay: Int
}

/// One entry of a time interval; an empty list means "any".
package struct TimeWindowEntry: Sendable, Equatable {
    /// Minutes of the day, start inclusive, end exclusive (24:00 = 1440). An end at or before the start wraps
    /// midnight (`22:00`–`06:00`).
    package var times: [ClockRange] = []
    /// 0 = Sunday … 6 = Saturday; a range may wrap the week (`friday:monday`).
    package var weekdays: [ClosedRange<Int>] = []
    /// 1…31, or negative from the month's end (-1 = the last day).
    package var daysOfMonth: [ClosedRange<Int>] = []
    /// 1…12.
    package var months: [ClosedRange<Int>] = []
    package var years: [ClosedRange<Int>] = []

    package init(
        times: [ClockRange] = [], weekdays: [ClosedRange<Int>] = [], daysOfMonth: [ClosedRange<Int>] = [],
        months: [ClosedRange<Int>] = [], years: [ClosedRange<Int>] = []
    ) {
        self.times = times
        self.weekdays = weekdays
        self.daysOfMonth = daysOfMonth
        self.months = months
        self.years = years
    }

    package func contains(_ moment: LocalMoment) -> Bool {
        if !times.isEmpty, !times.contains(where: { $0.contains(moment.minuteOfDay) }) { return false }
        if !weekdays.isEmpty, !weekdays.contains(where: { Self.cyclic($0, contains: moment.weekday, period: 7) }) { return false }
        if !daysOfMonth.isEmpty, !daysOfMonth.contains(where: { Self.day($0, contains: moment) }) { return false }
        if !months.isEmpty, !months.contains(where: { $0.contains(moment.month) }) { return false }
        if !years.isEmpty, !years.contains(where: { $0.contains(moment.year) }) { return false }
        return true
    }

    /// `lowerBound > upperBound` cannot exist in a ClosedRange; a wrapping weekday range is stored as
    /// `start...(end + period)`.
    private static func cyclic(_ range: ClosedRange<Int>, contains value: Int, period: Int) -> Bool {
        range.contains(value) || range.contains(value + period)
    }

    /// Negative days count from the month's end; a range is clamped to the month as Alertmanager does.
    private static func day(_ range: ClosedRange<Int>, contains moment: LocalMoment) -> Bool {
        func absolute(_ day: Int) -> Int { day < 0 ? moment.daysInMonth + day + 1 : day }
        let lower = max(1, absolute(range.lowerBound))
        let upper = min(moment.daysInMonth, absolute(range.upperBound))
        return lower <= upper && (lower...upper).contains(moment.day)
    }
}

/// A clock range in minutes of the day: `start` inclusive, `end` exclusive; wraps midnight when end ≤ start.
package struct ClockRange: Sendable, Equatable {
    package var start: Int
    package var end: Int

    package init(start: Int, end: Int) {
        self.start = start
        self.end = end
    }

    package func contains(_ minute: Int) -> Bool {
        start < end ? (start..<end).contains(minute) : (minute >= start || minute < end)
    }
}
