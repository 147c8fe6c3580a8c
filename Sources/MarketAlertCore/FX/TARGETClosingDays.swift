import Foundation

/// The TARGET closing days, on which the ECB publishes no euro reference rates (Frankfurter's source): New
/// Year's Day, Good Friday, Easter Monday, 1 May (Labour Day), Christmas Day and 26 December (ECB, "TARGET
/// closing days"; the reference rates are published "on every TARGET business day").
package enum TARGETClosingDays {
    /// Whether the day holding `day` (in `calendar`'s zone, Frankfurt's for the ECB) is a closing day.
    package static func contains(_ day: Date, calendar: Calendar) -> Bool {
        let parts = calendar.dateComponents([.year, .month, .day], from: day)
        guard let year = parts.year, let month = parts.month, let date = parts.day else { return false }
        switch (month, date) {
        case (1, 1), (5, 1), (12, 25), (12, 26): return true
        default: break
        }
        guard let sunday = easterSunday(year, calendar: calendar) else { return false }
        return [-2, 1].contains { offset in
            calendar.date(byAdding: .day, value: offset, to: sunday).map { calendar.isDate($0, inSameDayAs: day) } ?? false
        }
    }

    /// Easter Sunday of `year` in the Gregorian calendar, at the start of that day in `calendar`'s zone.
    package static func easterSunday(_ year: Int, calendar: Calendar) -> Date? {
        let (month, day) = easterDate(year)
        return calendar.date(from: DateComponents(year: year, month: month, day: day))
    }

    /// The Gregorian computus ("Anonymous Gregorian algorithm", Meeus, *Astronomical Algorithms*, ch. 8): the
    /// month and day of Easter Sunday. Foundation has no ecclesiastical calendar, so the rule that defines the
    /// date is written out; every date built from it is Foundation's.
    package static func easterDate(_ year: Int) -> (month: Int, day: Int) {
        let a = year % 19
        let b = year / 100
        let c = year % 100
        let d = b / 4
        let e = b % 4
        let f = (b + 8) / 25
        let g = (b - f + 1) / 3
        let h = (19 * a + b - d - g + 15) % 30
        let i = c / 4
        let k = c % 4
        let l = (32 + 2 * e + 2 * i - h - k) % 7
        let m = (a + 11 * h + 22 * l) / 451
        let month = (h + l - 7 * m + 114) / 31
        let day = (h + l - 7 * m + 114) % 31 + 1
        return (month, day)
    }
}
