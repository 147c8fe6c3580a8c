import Foundation

/// `premium.context` of a notification: where its pct stands among the key's history samples (by their max
/// pct) over the rule's `context_window`. Absent until the window holds ``PremiumContext/minimumSamples``.
package struct PremiumContext: Sendable, Equatable, Codable {
    package var window: String
    /// Share of samples at or below the pct, in percent.
    @PercentNumber package var percentile: Double
    package var samples: Int
    @OptionalPercentNumber package var maxPct: Double?
    package var maxAt: Date?
    @OptionalPercentNumber package var medianPct: Double?

    package static let minimumSamples = 10

    package init(window: String, percentile: Double, samples: Int, maxPct: Double?, maxAt: Date?, medianPct: Double?) {
        self.window = window
        self.percentile = percentile
        self.samples = samples
        self.maxPct = maxPct
        self.maxAt = maxAt
        self.medianPct = medianPct
    }

    enum CodingKeys: String, CodingKey {
        case window, percentile, samples, maxPct = "max_pct", maxAt = "max_at", medianPct = "median_pct"
    }

    /// `higher than 97% of the last 30 days (median 2.1%, max 4.1% on 2 Nov)`, dates in `timeZone`.
    package func text(timeZone: TimeZone) -> String {
        let share = Int(percentile.rounded(.down))
        var text: String
        if percentile >= 100 {
            text = "the highest of the last \(Self.windowWords(window))"
        } else if percentile <= 0 {
            text = "the lowest of the last \(Self.windowWords(window))"
        } else {
            text = "at or above \(share)% of the last \(Self.windowWords(window))"
        }
        var details: [String] = []
        if let medianPct { details.append("median \(NumberText.pctText(medianPct))%") }
        if let maxPct, let maxAt { details.append("max \(NumberText.pctText(maxPct))% on \(Self.day(maxAt, timeZone: timeZone))") }
        if !details.isEmpty { text += " (\(details.joined(separator: ", ")))" }
        return text
    }

    /// `30d` → `30 days`, `12h` → `12 hours`, `1d12h` stays as written.
    static func windowWords(_ window: String) -> String {
        guard let duration = DurationText.parse(window) else { return window }
        let seconds = Int64(duration.seconds)
        for (unit, size) in [("day", Int64(86_400)), ("hour", 3600), ("minute", 60)] where seconds % size == 0 && seconds >= size {
            let n = seconds / size
            return n == 1 ? unit : "\(n) \(unit)s"
        }
        return window
    }

    /// `2 Nov` (with the year when it is not `now`'s), in `timeZone`.
    static func day(_ date: Date, timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.day, .month], from: date)
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard let day = parts.day, let month = parts.month, (1...12).contains(month) else { return Timestamp.rfc3339(date) }
        return "\(day) \(months[month - 1])"
    }
}

extension PremiumHistory {
    /// The context of `pct` for `key` at `now`, or nil without history or with fewer than 10 samples in the window.
    package mutating func context(_ key: String, rule: String, pct: Double, now: Date) -> PremiumContext? {
        guard let resolution, rings[key] != nil else { return nil }
        let current = slot(now, resolution: resolution)
        rings[key]?.advance(to: current - 1)
        guard let ring = rings[key], ring.count >= PremiumContext.minimumSamples else { return nil }
        let share = Double(ring.countAtOrBelow(pct)) / Double(ring.count) * 100
        let maximum = ring.maximum
        return PremiumContext(
            window: windows[rule] ?? "", percentile: min(100, share), samples: ring.count, maxPct: maximum?.pct,
            maxAt: maximum.map { Date(timeIntervalSince1970: Double($0.slot) * resolution) },
            medianPct: ring.median().map { NumberText.double(NumberText.decimal($0, places: 4)) })  // codes hold ~4 digits
    }
}
