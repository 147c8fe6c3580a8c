import Foundation

extension CalendarDay {
    /// Whole days from `self` to `other` (negative when `other` is earlier), counted by a Gregorian calendar
    /// (never by dividing seconds). nil only for days a calendar cannot represent.
    package func days(until other: CalendarDay) -> Int? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        guard let from = calendar.date(from: DateComponents(year: year, month: month, day: day, hour: 12)),
              let to = calendar.date(from: DateComponents(year: other.year, month: other.month, day: other.day, hour: 12))
        else { return nil }
        return calendar.dateComponents([.day], from: from, to: to).day
    }
}

/// Days said relative to today, for summaries and `marketalertd once`: `today`, `tomorrow`, `yesterday`,
/// `in 3 days`, `2 days ago`. Both days are calendar days of the same zone (the market's).
package enum RelativeDay {
    package static func phrase(_ day: CalendarDay, today: CalendarDay) -> String {
        guard let offset = today.days(until: day) else { return day.iso }
        switch offset {
        case 0: return "today"
        case 1: return "tomorrow"
        case -1: return "yesterday"
        case 2...: return "in \(offset) days"
        default: return "\(-offset) days ago"
        }
    }

    /// `opened 2 days ago (2024-01-02)`-style: the phrase followed by the date, or just `today 2024-01-04`.
    package static func dated(_ day: CalendarDay, today: CalendarDay) -> String {
        "\(phrase(day, today: today)) (\(day.iso))"
    }
}
