import Foundation

/// Calendar work for FX quote times, done with Foundation calendars in the provider's own zone (never by
/// adding hour offsets by hand). Every function returns nil rather than guess when its input does not name
/// a real instant (`2021-02-30`, `25:00:00`) or the zone is unknown to the system.
package enum FXQuoteTime {
    /// Dunamu (Hana Bank) publishes `date`/`time` in Korean time.
    package static let seoulZoneID = "Asia/Seoul"
    /// ECB reference rates are set and published in Frankfurt time (CET/CEST).
    package static let ecbZoneID = "Europe/Berlin"
    /// The ECB's rates are "a point-in-time snapshot at 14:15 CET" (ECB press release, 7 December 2015).
    package static let ecbSnapshot = (hour: 14, minute: 15)
    /// ... and are "published at around 16:00 CET" on every TARGET business day.
    package static let ecbPublication = (hour: 16, minute: 0)

    /// A gregorian calendar in the zone `identifier`, or nil when the system does not know the zone.
    package static func calendar(_ identifier: String) -> Calendar? {
        guard let zone = TimeZone(identifier: identifier) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }

    /// `2021-08-13` + `20:01:49` read as wall-clock time in `zoneID` (seconds optional: `20:01`).
    package static func local(date: String, time: String, zoneID: String) -> Date? {
        guard let day = parseDate(date), let clock = parseTime(time) else { return nil }
        return instant(year: day.year, month: day.month, day: day.day, hour: clock.hour, minute: clock.minute,
                       second: clock.second, zoneID: zoneID)
    }

    /// The instant of an ECB reference rate dated `date` (`YYYY-MM-DD`): 14:15 Frankfurt time that day.
    package static func ecbReferenceTime(date: String) -> Date? {
        guard let day = parseDate(date) else { return nil }
        return instant(year: day.year, month: day.month, day: day.day, hour: ecbSnapshot.hour,
                       minute: ecbSnapshot.minute, second: 0, zoneID: ecbZoneID)
    }

    /// When the ECB publishes the rate that replaces one taken at `quoteTime`: 16:00 Frankfurt time on the
    /// next TARGET business day (a weekday that is not a TARGET closing day: 1 Jan, Good Friday, Easter
    /// Monday, 1 May, 25/26 Dec), so a rate is not overdue over a holiday.
    package static func ecbNextPublication(after quoteTime: Date) -> Date? {
        guard let calendar = calendar(ecbZoneID) else { return nil }
        var day = calendar.startOfDay(for: quoteTime)
        for _ in 0..<10 {
            guard let next = calendar.date(byAdding: .day, value: 1, to: day) else { return nil }
            day = next
            if !calendar.isDateInWeekend(day) && !TARGETClosingDays.contains(day, calendar: calendar) {
                return calendar.date(bySettingHour: ecbPublication.hour, minute: ecbPublication.minute, second: 0, of: day)
            }
        }
        return nil
    }

    /// `yyyy-MM-dd HH:mm` of `date` in `zoneID` (for summaries).
    package static func display(_ date: Date, zoneID: String) -> String? {
        guard let calendar = calendar(zoneID) else { return nil }
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        guard let year = c.year, let month = c.month, let day = c.day, let hour = c.hour, let minute = c.minute else {
            return nil
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2)) \(pad(hour, 2)):\(pad(minute, 2))"
    }

    // MARK: Parsing

    private static func instant(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, zoneID: String) -> Date? {
        guard let calendar = calendar(zoneID) else { return nil }
        let wanted = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        guard let date = calendar.date(from: wanted) else { return nil }
        // The calendar normalises out-of-range fields (Feb 30 → Mar 2); only a round trip proves the date real.
        let back = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        guard back.year == year, back.month == month, back.day == day, back.hour == hour, back.minute == minute,
              back.second == second
        else { return nil }
        return date
    }

    private static func parseDate(_ text: String) -> (year: Int, month: Int, day: Int)? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let year = digits(parts[0]), let month = digits(parts[1]), let day = digits(parts[2])
        else { return nil }
        return (year, month, day)
    }

    private static func parseTime(_ text: String) -> (hour: Int, minute: Int, second: Int)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3, parts.allSatisfy({ $0.count == 2 }),
              let hour = digits(parts[0]), let minute = digits(parts[1])
        else { return nil }
        var second = 0
        if parts.count == 3 {
            guard let value = digits(parts[2]) else { return nil }
            second = value
        }
        return (hour, minute, second)
    }

    /// Only ASCII digits (`Int("+5")` would accept a sign).
    private static func digits(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int(text)
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
