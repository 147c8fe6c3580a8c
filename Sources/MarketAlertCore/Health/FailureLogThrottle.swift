import Foundation

/// What the log says about one failing source (an exchange, an FX provider, TWSE): the diary, not the
/// notification (that is the `source/<name>` alert). A failing poll every second must not write 3,600 lines
/// an hour for one fact. Feed it every outcome; it returns the line to write, or nil:
///
/// - the first failure of a streak: `binance failing: timeout`;
/// - a change of error: `binance failing with a new error after 12 attempts: HTTP 503 (was: timeout)`, at
///   most ``maxChangeLinesPerInterval`` per interval (an error that alternates or carries a counter is folded
///   into the next summary instead);
/// - while it persists, at most one line per ``interval`` (10 minutes) after the last line:
///   `binance still failing: 612 attempts since 09:12 UTC, last: timeout`;
/// - the recovery: `binance recovered after 612 failed attempts over 10m12s`.
///
/// A pure value: time is the caller's `now`; keep one per source.
package struct FailureLogThrottle: Sendable, Equatable {
    package struct Line: Sendable, Equatable, CustomStringConvertible {
        package enum Level: Sendable, Equatable { case warning, notice }
        /// `warning` while failing, `notice` for the recovery.
        package var level: Level
        package var message: String
        package var description: String { message }

        package init(level: Level, message: String) {
            self.level = level
            self.message = message
        }
    }

    package static let maxChangeLinesPerInterval = 3
    /// Distinct error texts remembered per streak (memory stays bounded when every error text differs).
    package static let rememberedErrors = 64
    /// Longest error text quoted in a line (characters).
    package static let messageLimit = 300

    package let source: String
    package let interval: TimeInterval
    private var streak: Streak?

    private struct Streak: Sendable, Equatable {
        var since: Date
        var attempts: Int
        var lastError: String
        /// The distinct errors of this streak (at most ``rememberedErrors`` kept) and how many there were.
        var errors: Set<String>
        var distinctErrors: Int
        var lastLineAt: Date
        var changeLinesSinceSummary: Int
        var foldedChanges: Int

        /// Counts `error` if this streak has not seen it; true when it is new.
        @discardableResult
        mutating func remember(_ error: String) -> Bool {
            guard !errors.contains(error) else { return false }
            distinctErrors += 1
            if errors.count < FailureLogThrottle.rememberedErrors { errors.insert(error) }
            return true
        }
    }

    package init(source: String, interval: Duration = .seconds(600)) {
        self.source = source
        self.interval = interval.seconds
    }

    /// True while the last outcome was a failure.
    package var isFailing: Bool { streak != nil }

    package mutating func failure(_ error: String, now: Date) -> Line? {
        let error = PublishedText.sanitized(error, limit: Self.messageLimit)
        guard var streak else {
            streak = Streak(
                since: now, attempts: 1, lastError: error, errors: [error], distinctErrors: 1, lastLineAt: now, changeLinesSinceSummary: 0,
                foldedChanges: 0)
            return Line(level: .warning, message: "\(source) failing: \(error)")
        }
        defer { self.streak = streak }
        streak.attempts += 1
        let previous = streak.lastError
        streak.lastError = error
        let due = now.timeIntervalSince(streak.lastLineAt) >= interval
        if error != previous, !due {
            let isNew = streak.remember(error)
            if isNew, streak.changeLinesSinceSummary < Self.maxChangeLinesPerInterval {
                streak.changeLinesSinceSummary += 1
                streak.lastLineAt = now
                return Line(
                    level: .warning,
                    message: "\(source) failing with a new error after \(streak.attempts - 1) attempts: \(error) (was: \(previous))")
            }
            streak.foldedChanges += 1
            return nil
        }
        guard due else { return nil }
        streak.remember(error)
        var text = "\(source) still failing: \(streak.attempts) attempts since \(Self.clock(streak.since, now: now))"
        if streak.foldedChanges > 0 { text += ", \(streak.distinctErrors) different errors" }
        text += ", last: \(error)"
        streak.lastLineAt = now
        streak.changeLinesSinceSummary = 0
        streak.foldedChanges = 0
        return Line(level: .warning, message: text)
    }

    package mutating func success(now: Date) -> Line? {
        guard let streak else { return nil }
        self.streak = nil
        let attempts = streak.attempts == 1 ? "1 failed attempt" : "\(streak.attempts) failed attempts"
        return Line(
            level: .notice,
            message: "\(source) recovered after \(attempts) over \(Self.elapsed(now.timeIntervalSince(streak.since)))")
    }

    /// `09:12 UTC`, or `2026-03-09 23:58 UTC` when the streak began on another UTC day than `now`.
    static func clock(_ instant: Date, now: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: instant)
        let time = "\(pad(c.hour ?? 0)):\(pad(c.minute ?? 0)) UTC"
        guard !calendar.isDate(instant, inSameDayAs: now) else { return time }
        return "\(c.year ?? 0)-\(pad(c.month ?? 0))-\(pad(c.day ?? 0)) \(time)"
    }

    /// `45s`, `10m12s`, `2h03m`, `3d04h`.
    static func elapsed(_ seconds: TimeInterval) -> String {
        let total = max(0, Int(seconds.rounded(.down)))
        let (days, hours, minutes, rest) = (total / 86_400, total / 3600 % 24, total / 60 % 60, total % 60)
        if days > 0 { return "\(days)d\(pad(hours))h" }
        if hours > 0 { return "\(hours)h\(pad(minutes))m" }
        if minutes > 0 { return "\(minutes)m\(pad(rest))s" }
        return "\(rest)s"
    }

    private static func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
