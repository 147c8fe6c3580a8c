import Foundation

/// Calendar arithmetic in a market's time zone, all through Foundation calendars (no hand-made offsets):
/// ROC (民國) date parsing, the day an instant falls on, and the instants where days begin (DST-correct for
/// any zone, including zones whose clocks skip midnight).
package struct MarketCalendar: Sendable, Equatable {
    package let timeZone: TimeZone
    private let gregorian: Calendar
    private let republicOfChina: Calendar

    package init(timeZone: TimeZone) {
        self.timeZone = timeZone
        var gregorian = Calendar(identifier: .gregorian)
        gregorian.timeZone = timeZone
        self.gregorian = gregorian
        var roc = Calendar(identifier: .republicOfChina)
        roc.timeZone = timeZone
        self.republicOfChina = roc
    }

    /// nil for an unknown zone identifier.
    package init?(timeZoneIdentifier: String) {
        guard let zone = TimeZone(identifier: timeZoneIdentifier) else { return nil }
        self.init(timeZone: zone)
    }

    /// The calendar day `instant` falls on in this zone.
    package func day(of instant: Date) -> CalendarDay {
        CalendarDay(
            year: gregorian.component(.year, from: instant), month: gregorian.component(.month, from: instant),
            day: gregorian.component(.day, from: instant))
    }

    /// The Gregorian year of `instant` in this zone.
    package func year(of instant: Date) -> Int { gregorian.component(.year, from: instant) }

    /// The first instant of `day` in this zone: local midnight, or the first existing time when a DST change
    /// skips midnight.
    package func startOfDay(_ day: CalendarDay) -> Date? {
        guard let noon = gregorian.date(from: DateComponents(year: day.year, month: day.month, day: day.day, hour: 12)),
              self.day(of: noon) == day
        else { return nil }
        return gregorian.dateInterval(of: .day, for: noon)?.start
    }

    /// The first instant of the day after the one containing `instant` (the next local midnight).
    package func nextMidnight(after instant: Date) -> Date? {
        gregorian.dateInterval(of: .day, for: instant)?.end
    }

    /// Parses an ROC date as TWSE publishes it, `YYY/MM/DD` (`113/01/02` is 2024-01-02), through Foundation's
    /// `.republicOfChina` calendar (era 民國). Returns nil for anything else: wrong shape, non-ASCII digits,
    /// year 0, or a day the calendar does not have (`115/02/30`; Foundation would roll it over to March).
    package func parseROC(_ text: String) -> CalendarDay? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let parts = trimmed.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3,
              (1...4).contains(parts[0].count), (1...2).contains(parts[1].count), (1...2).contains(parts[2].count),
              parts.allSatisfy({ $0.allSatisfy(\.isASCIIDigitCharacter) }),
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]), year >= 1
        else { return nil }
        var components = DateComponents()
        components.era = 1  // 民國 (era 0 is 民前, before 1912)
        components.year = year
        components.month = month
        components.day = day
        components.hour = 12
        guard let instant = republicOfChina.date(from: components) else { return nil }
        let back = republicOfChina.dateComponents([.era, .year, .month, .day], from: instant)
        guard back.era == 1, back.year == year, back.month == month, back.day == day else { return nil }
        return self.day(of: instant)
    }
}

extension CalendarDay {
    /// The day `days` later (earlier when negative), in the proleptic Gregorian calendar.
    package func adding(days: Int) -> CalendarDay? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        guard let noon = calendar.date(from: DateComponents(year: year, month: month, day: day, hour: 12)),
              let moved = calendar.date(byAdding: .day, value: days, to: noon)
        else { return nil }
        return CalendarDay(
            year: calendar.component(.year, from: moved), month: calendar.component(.month, from: moved),
            day: calendar.component(.day, from: moved))
    }
}
