import Foundation

extension TimeWindowEntry {
    /// Alertmanager's fields: `times` ({start, end} "HH:MM", end exclusive, up to "24:00"), `weekdays`
    /// (names or `monday:friday`), `days_of_month` (1…31 or -31…-1, ranges `1:5`, `-3:-1`), `months` (names or
    /// 1…12, ranges), `years` (ranges `2025:2027`).
    static func read(_ table: ConfigTable) -> TimeWindowEntry {
        var entry = TimeWindowEntry()
        for item in table.list("times") ?? [] {
            guard let sub = ConfigTable(item.node, path: item.path, diagnostics: table.diagnosticsSink) else { continue }
            let start = sub.required("start", sub.string).flatMap { clockMinute($0, sub, "start") }
            let end = sub.required("end", sub.string).flatMap { clockMinute($0, sub, "end") }
            if let start, let end {
                if start == end || start >= 1440 {
                    sub.error("end", "must differ from start (a range ends before midnight or wraps it)")
                } else {
                    entry.times.append(ClockRange(start: start, end: end))
                }
            }
            sub.finish()
        }
        entry.weekdays = ranges(table, "weekdays", names: weekdayNames, bounds: 0...6, wraps: true)
        entry.daysOfMonth = ranges(table, "days_of_month", names: [:], bounds: -31...31, wraps: false)
        if entry.daysOfMonth.contains(where: { $0.lowerBound == 0 || $0.upperBound == 0 }) {
            table.error("days_of_month", "0 is not a day of the month (1…31, or -1 for the last day)")
        }
        entry.months = ranges(table, "months", names: monthNames, bounds: 1...12, wraps: false)
        entry.years = ranges(table, "years", names: [:], bounds: 1970...9999, wraps: false)
        return entry
    }

    /// "HH:MM" → minute of the day; "24:00" is the end of the day.
    private static func clockMinute(_ text: String, _ table: ConfigTable, _ key: String) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2, let hour = Int(parts[0]), let minute = Int(parts[1]),
              (0...24).contains(hour), (0...59).contains(minute), hour * 60 + minute <= 1440
        else {
            table.error(key, "expected a time \"HH:MM\" between 00:00 and 24:00, got \"\(text)\"")
            return nil
        }
        return hour * 60 + minute
    }

    /// A list of `value` or `first:last` items. `wraps`: a descending range goes round (weekdays).
    private static func ranges(
        _ table: ConfigTable, _ key: String, names: [String: Int], bounds: ClosedRange<Int>, wraps: Bool
    ) -> [ClosedRange<Int>] {
        var result: [ClosedRange<Int>] = []
        for item in table.list(key) ?? [] {
            guard case .scalar(let text, _, _) = item.node else {
                table.diagnosticsSink.error(item.path, "expected a value or a range such as \"a:b\"", at: item.node.mark)
                continue
            }
            let parts = text.lowercased().split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            let values = parts.map { names[$0] ?? Int($0) }
            guard (1...2).contains(parts.count), values.allSatisfy({ $0.map(bounds.contains) == true }),
                  let first = values.first ?? nil, let last = values.last ?? nil
            else {
                let allowed = names.isEmpty ? "\(bounds.lowerBound)…\(bounds.upperBound)" : "a name or \(bounds.lowerBound)…\(bounds.upperBound)"
                table.diagnosticsSink.error(item.path, "expected \(allowed) or a range of them (\"a:b\"), got \"\(text)\"", at: item.node.mark)
                continue
            }
            if first <= last {
                result.append(first...last)
            } else if wraps {
                result.append(first...(last + bounds.count))
            } else {
                table.diagnosticsSink.error(item.path, "a range must not run backwards, got \"\(text)\"", at: item.node.mark)
            }
        }
        return result
    }

    private static let weekdayNames = [
        "sunday": 0, "monday": 1, "tuesday": 2, "wednesday": 3, "thursday": 4, "friday": 5, "saturday": 6,
    ]
    private static let monthNames = [
        "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7, "august": 8,
        "september": 9, "october": 10, "november": 11, "december": 12,
    ]
}
