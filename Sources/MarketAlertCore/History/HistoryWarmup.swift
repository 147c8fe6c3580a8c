import Foundation

/// What the engine needs from stored history at start, folded row by row while the store is read (a month
/// of samples is never held as a list): the context rings, and the digest tallies of the period in progress
/// (since the last due time) and of the period before it (for a digest missed while the daemon was down).
package struct HistoryWarmup: Sendable {
    package private(set) var history = PremiumHistory()
    package private(set) var current: [String: DigestTally] = [:]
    package private(set) var previous: [String: DigestTally] = [:]
    package private(set) var samples = 0
    let lastDue: Date?
    /// The start of the slot in progress: a sample from it (a graceful stop wrote it) is restored as its key's
    /// open slot, not loaded into the rings as a closed one.
    let openSince: Date?
    let now: Date

    package init(settings: Settings, now: Date) {
        history.configure(settings)
        lastDue = settings.digest.flatMap(DigestSchedule.init)?.last(atOrBefore: now)
        openSince = history.resolution.map { Date(timeIntervalSince1970: ($0 * (now.timeIntervalSince1970 / $0).rounded(.down))) }
        self.now = now
    }

    /// The earliest sample worth loading: the longest `context_window`, and the day before the last digest.
    package static func since(settings: Settings, now: Date) -> Date {
        let resolution = (settings.history ?? HistorySettings()).resolution
        let window = settings.premium.rules.map { $0.contextWindow(resolution: resolution).seconds }.max() ?? 0
        var since = now.addingTimeInterval(-window)
        if let config = settings.digest, let due = DigestSchedule(config)?.last(atOrBefore: now) {
            since = min(since, due.addingTimeInterval(-86_400))
        }
        // The slot in progress, whatever the window (a stop wrote it; it is restored).
        let seconds = resolution.seconds
        return min(since, Date(timeIntervalSince1970: seconds * (now.timeIntervalSince1970 / seconds).rounded(.down)))
    }

    /// Adds one stored sample (oldest first).
    package mutating func add(_ sample: HistorySample) {
        samples += 1
        if let openSince, sample.at >= openSince {
            history.restoreOpen(sample, now: now)
        } else {
            history.remember(sample, key: sample.key)
        }
        guard let lastDue else { return }
        if sample.at >= lastDue {
            DigestTally.fold(CollectionOfOne(sample), into: &current)
        } else if sample.at >= lastDue.addingTimeInterval(-86_400) {
            DigestTally.fold(CollectionOfOne(sample), into: &previous)
        }
    }
}
