import Foundation

/// The text of TWSE's and TPEx's end-of-day tables: prices as strings with thousands separators
/// (`"1,234.50"`), dashes for no trade (`"--"`, `"---"`, `"----"`), and ROC dates without separators
/// (`"1150731"` is 2026-07-31).
package enum EndOfDayText {
    /// A positive price: digits with optional groups of three, an optional fraction (`"2,385.00"`, `"38.07"`).
    /// nil for dashes (no trade), empty, zero, a sign, or anything else.
    package static func price(_ text: String) -> Decimal? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.count <= 24 else { return nil }
        let parts = trimmed.split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count <= 2, let integer = parts.first, !integer.isEmpty else { return nil }
        let groups = integer.split(separator: ",", omittingEmptySubsequences: false)
        guard let first = groups.first, !first.isEmpty, first.count <= (groups.count == 1 ? 12 : 3),
              groups.dropFirst().allSatisfy({ $0.count == 3 }),
              groups.allSatisfy({ $0.allSatisfy(\.isASCIIDigitCharacter) })
        else { return nil }
        if parts.count == 2 {
            let fraction = parts[1]
            guard !fraction.isEmpty, fraction.count <= 8, fraction.allSatisfy(\.isASCIIDigitCharacter) else { return nil }
        }
        let plain = groups.joined() + (parts.count == 2 ? "." + parts[1] : "")
        guard let value = Decimal(string: plain, locale: nil), value > 0 else { return nil }
        return value
    }

    /// Whether a cell says "no trade": only dashes (`--`, `---`), or empty.
    package static func isNoTrade(_ text: String) -> Bool {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        return trimmed.allSatisfy { $0 == "-" }
    }

    /// An ROC date written `YYYMMDD` (`"1150731"`) or `YYMMDD` for years below 100, through the calendar's
    /// ROC parsing. nil for anything else.
    package static func rocCompactDate(_ text: String, calendar: MarketCalendar) -> CalendarDay? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard (6...7).contains(trimmed.count), trimmed.allSatisfy(\.isASCIIDigitCharacter) else { return nil }
        let year = trimmed.dropLast(4)
        let month = trimmed.dropFirst(trimmed.count - 4).prefix(2)
        let day = trimmed.suffix(2)
        return calendar.parseROC("\(year)/\(month)/\(day)")
    }

    /// A Gregorian date written `YYYYMMDD` (TWSE's `date`, `"20260603"`). nil for anything else.
    package static func gregorianCompactDate(_ text: String) -> CalendarDay? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.count == 8, trimmed.allSatisfy(\.isASCIIDigitCharacter) else { return nil }
        return CalendarDay(iso: "\(trimmed.prefix(4))-\(trimmed.dropFirst(4).prefix(2))-\(trimmed.suffix(2))")
    }
}
