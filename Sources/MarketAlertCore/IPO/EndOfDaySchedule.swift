import Foundation

/// When end-of-day market prices are polled: once per trading day, at a local hour after the close (TWSE
/// and TPEx publish their closes in the afternoon, the emerging board its averages at 16:30). Weekends are
/// skipped; a holiday's poll finds no new rows and changes nothing. Foundation calendars in the market's
/// zone (Asia/Taipei has no DST, but nothing here assumes it).
package struct EndOfDaySchedule: Sendable, Equatable {
    package let timeZone: TimeZone
    package let hour: Int

    package init(timeZone: TimeZone, hour: Int) {
        self.timeZone = timeZone
        self.hour = min(max(hour, 0), 23)
    }

    /// The first poll instant strictly after `now`: `hour`:00 local on the next Monday-to-Friday day.
    package func next(after now: Date) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        var day = calendar.startOfDay(for: now)
        for _ in 0..<8 {
            let weekday = calendar.component(.weekday, from: day)  // 1 Sunday ... 7 Saturday
            if weekday != 1, weekday != 7,
               let slot = calendar.date(bySettingHour: hour, minute: 0, second: 0, of: day), slot > now {
                return slot
            }
            guard let following = calendar.date(byAdding: .day, value: 1, to: day) else { break }
            day = calendar.startOfDay(for: following)
        }
        return now.addingTimeInterval(86_400)
    }
}
