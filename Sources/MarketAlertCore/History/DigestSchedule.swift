import Foundation

/// When digests fall due: `digest.at` in `digest.time_zone`, through a Foundation calendar (a time the
/// zone skips on a DST change is sent at the next existing time; a repeated one at its first occurrence).
package struct DigestSchedule: Sendable {
    package let settings: DigestSettings
    let calendar: MarketCalendar
    private let gregorian: Calendar

    package init?(_ settings: DigestSettings) {
        guard let zone = TimeZone(identifier: settings.timeZone) else { return nil }
        self.settings = settings
        calendar = MarketCalendar(timeZone: zone)
        var gregorian = Calendar(identifier: .gregorian)
        gregorian.timeZone = zone
        self.gregorian = gregorian
    }

    /// The first due time strictly after `date`.
    package func next(after date: Date) -> Date? {
        gregorian.nextDate(
            after: date, matching: DateComponents(hour: settings.hour, minute: settings.minute, second: 0),
            matchingPolicy: .nextTime, repeatedTimePolicy: .first, direction: .forward)
    }

    /// The latest due time at or before `date`.
    package func last(atOrBefore date: Date) -> Date? {
        guard var candidate = next(after: date.addingTimeInterval(-3 * 86_400)), candidate <= date else { return nil }
        while let following = next(after: candidate), following <= date { candidate = following }
        return candidate
    }

    /// The local day (in `time_zone`) a digest due at `date` is for: `2026-11-23`.
    package func day(of date: Date) -> String { calendar.day(of: date).iso }
}

/// One rule × asset over a digest's period, folded from history samples.
package struct DigestTally: Sendable, Equatable {
    package var minPct: Double
    package var maxPct: Double
    package var maxAt: Date
    package var lastPct: Double
    package var lastAt: Date
    package var notifications: Int

    package init(_ sample: HistorySample) {
        minPct = sample.minPct
        maxPct = sample.maxPct
        maxAt = sample.at
        lastPct = sample.lastPct
        lastAt = sample.at
        notifications = sample.notifications
    }

    package mutating func add(_ sample: HistorySample) {
        minPct = min(minPct, sample.minPct)
        if sample.maxPct > maxPct { maxPct = sample.maxPct; maxAt = sample.at }
        if sample.at >= lastAt { lastPct = sample.lastPct; lastAt = sample.at }
        notifications += sample.notifications
    }

    /// Folds samples per key.
    package static func fold(_ samples: some Sequence<HistorySample>, into tallies: inout [String: DigestTally]) {
        for sample in samples {
            let key = sample.key
            if tallies[key] == nil { tallies[key] = DigestTally(sample) } else { tallies[key]?.add(sample) }
        }
    }
}

/// The engine's digest state: the schedule, the last day sent (persisted as state kind `digest`), and the
/// tallies of the period in progress (`current`: before `due`; `following`: samples already past it).
struct DigestState: Sendable {
    var schedule: DigestSchedule?
    var sentDay: String?
    var due: Date?
    var current: [String: DigestTally] = [:]
    var following: [String: DigestTally] = [:]
    /// A digest missed while the daemon was down, sent at start or takeover (see ``HistoryMachine``).
    var late: (due: Date, tallies: [String: DigestTally])?

    mutating func add(_ samples: [HistorySample]) {
        guard let due else { return }
        DigestTally.fold(samples.lazy.filter { $0.at < due }, into: &current)
        DigestTally.fold(samples.lazy.filter { $0.at >= due }, into: &following)
    }

    /// Moves to the next period after the digest due at `sent` went out (or was skipped).
    mutating func roll(after sent: Date) {
        current = following
        following = [:]
        due = schedule?.next(after: sent)
    }
}

/// The persisted record of the last digest day (state kind `digest`, key `digest`).
package struct DigestRecord: Sendable, Codable, Equatable {
    package var day: String

    package init(day: String) { self.day = day }

    package static let key = "digest"
    package static let kind = "digest"
}
