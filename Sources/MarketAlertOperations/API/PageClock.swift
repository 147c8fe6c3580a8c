import Foundation

/// Times on the page: instants in every display zone, ages relative to the page's own time.
package struct PageClock {
    package let now: Date
    package let zones: [TimeZone]

    /// `2026-03-10 11:00 UTC / 20:00 Asia/Seoul` (the date again only when it differs from the first zone's).
    package func instant(_ date: Date) -> String {
        var parts: [String] = []
        var firstDay: String?
        for zone in zones {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone
            let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
            let day = String(format: "%04d-%02d-%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0)
            let time = String(format: "%02d:%02d:%02d", c.hour ?? 0, c.minute ?? 0, c.second ?? 0)
            let name = zone.identifier == "GMT" ? "UTC" : zone.identifier
            if firstDay == nil || firstDay != day { parts.append("\(day) \(time) \(name)") } else { parts.append("\(time) \(name)") }
            if firstDay == nil { firstDay = day }
        }
        return parts.joined(separator: " / ")
    }

    package func age(_ date: Date) -> String { duration(now.timeIntervalSince(date)) + " ago" }

    /// `42s`, `5m 03s`, `2h 10m`, `3d 4h`.
    package func duration(_ seconds: TimeInterval) -> String {
        let s = max(0, Int(seconds.rounded()))
        if s < 60 { return "\(s)s" }
        if s < 3600 { return "\(s / 60)m \(String(format: "%02d", s % 60))s" }
        if s < 86_400 { return "\(s / 3600)h \(String(format: "%02d", (s % 3600) / 60))m" }
        return "\(s / 86_400)d \((s % 86_400) / 3600)h"
    }
}
