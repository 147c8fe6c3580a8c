import Foundation

extension IPOOffering {
    /// The instants at which this offering's state, or the notifications due for it, can change: the starts of
    /// the subscription start day (→ `open`), the end day (→ `last_day`), the day after the end (→ `closed`),
    /// the day after that (the closing day's catch-up ends) and the lottery day. Each is local midnight in the
    /// source's zone, computed by `MarketCalendar` (DST-correct).
    package func boundaries(in calendar: MarketCalendar) -> [Date] {
        var days: [CalendarDay] = []
        if let window {
            days.append(window.start)
            days.append(window.end)
            if let after = window.end.adding(days: 1) { days.append(after) }
            if let twoAfter = window.end.adding(days: 2) { days.append(twoAfter) }
        }
        if let lotteryDate {
            days.append(lotteryDate)
            if let after = lotteryDate.adding(days: 1) { days.append(after) }
        }
        return days.compactMap(calendar.startOfDay)
    }

    /// The first boundary strictly after `instant`, if any is left.
    package func nextBoundary(after instant: Date, in calendar: MarketCalendar) -> Date? {
        boundaries(in: calendar).filter { $0 > instant }.min()
    }
}
