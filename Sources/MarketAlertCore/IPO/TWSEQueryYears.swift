import Foundation

extension TWSEPublicFormTable {
    /// The `yy` values to request at `now`. TWSE's `yy` is the Gregorian year: the recorded `yy=2026` answer
    /// holds lottery dates in ROC 115 (2026), some with subscriptions that started in ROC 114 (2025), so a
    /// year's list is keyed by lottery date. Today's year (in the source's zone) comes first; in December
    /// the next year is asked too and in January the previous one, so a window spanning 31 Dec – 2 Jan is
    /// seen from both sides of the new year.
    package static func queryYears(at now: Date, calendar: MarketCalendar) -> [Int] {
        let today = calendar.day(of: now)
        switch today.month {
        case 12: return [today.year, today.year + 1]
        case 1: return [today.year, today.year - 1]
        default: return [today.year]
        }
    }
}
