import Foundation

/// v2 `history:`: one sample (min / max / last pct) per rule, asset and `resolution`, kept `retention` long in the
/// state store. Absent: no samples are written and no notification carries `premium.context`.
package struct HistorySettings: Sendable, Equatable {
    package var resolution: Duration = .seconds(60)
    package var retention: Duration = .seconds(90 * 86_400)

    package init(resolution: Duration = .seconds(60), retention: Duration = .seconds(90 * 86_400)) {
        self.resolution = resolution
        self.retention = retention
    }

    /// At most this many slots in one `context_window` (a ring of 2 bytes per slot per key is kept in memory).
    package static let maximumSlots = 200_000

    static func read(_ table: ConfigTable) -> HistorySettings {
        var settings = HistorySettings()
        if let value = table.duration("resolution") {
            if value < .seconds(1) {
                table.error("resolution", "must be at least 1s, got \(DurationText.format(value))")
            } else if value.components.attoseconds != 0 {
                table.error("resolution", "must be a whole number of seconds, got \(DurationText.format(value))")
            } else if value > .seconds(86_400) {
                table.error("resolution", "must be at most 1d, got \(DurationText.format(value))")
            } else {
                settings.resolution = value
            }
        }
        if let value = table.duration("retention") {
            if value < settings.resolution {
                table.error("retention", "must be at least one resolution (\(DurationText.format(settings.resolution))), got \(DurationText.format(value))")
            } else {
                settings.retention = value
            }
        }
        return settings
    }
}

/// v2 `digest:`: one summary notification a day at `at` in `time_zone`, covering the 24 hours before.
package struct DigestSettings: Sendable, Equatable {
    package enum Kind: String, Sendable, CaseIterable { case premium, ipo }

    package var hour: Int
    package var minute: Int
    package var timeZone: String
    package var kinds: Set<Kind> = [.premium, .ipo]

    package init(hour: Int, minute: Int, timeZone: String, kinds: Set<Kind> = [.premium, .ipo]) {
        self.hour = hour
        self.minute = minute
        self.timeZone = timeZone
        self.kinds = kinds
    }

    /// `HH:MM`, as written in the config.
    package var at: String { String(format: "%02d:%02d", hour, minute) }

    static func read(_ table: ConfigTable) -> DigestSettings? {
        let at = table.required("at", table.string)
        let zone = table.string("time_zone") ?? "UTC"
        var valid = true
        if TimeZone(identifier: zone) == nil {
            table.error("time_zone", "unknown time zone \"\(zone)\"")
            valid = false
        }
        let kinds = table.oneOfList("kinds", as: Kind.self)
        if kinds?.isEmpty == true { table.error("kinds", "must list at least one of premium, ipo") }
        guard let at else { return nil }
        guard let clock = parseClock(at) else {
            table.error("at", "expected a local time HH:MM such as \"09:00\", got \"\(at)\"")
            return nil
        }
        guard valid else { return nil }
        return DigestSettings(hour: clock.0, minute: clock.1, timeZone: zone, kinds: kinds.map { Set($0) } ?? [.premium, .ipo])
    }

    /// `09:00` → (9, 0); nil unless two-digit hour 00-23 and minute 00-59.
    package static func parseClock(_ text: String) -> (Int, Int)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let hour = Int(parts[0]), let minute = Int(parts[1]), (0...23).contains(hour), (0...59).contains(minute)
        else { return nil }
        return (hour, minute)
    }
}

extension PremiumRule {
    package static let defaultContextWindow: Duration = .seconds(30 * 86_400)

    /// The window in use at `resolution`: `context_window` as configured, else 30 days, or as many days as
    /// fit in ``HistorySettings/maximumSlots`` samples (a `resolution: 1s` test config needs no window).
    package func contextWindow(resolution: Duration) -> Duration {
        if let contextWindow { return contextWindow }
        return min(Self.defaultContextWindow, resolution * HistorySettings.maximumSlots)
    }
}

extension Settings {
    /// Reads `history:` and `digest:` (called from `read`).
    mutating func readHistory(_ root: ConfigTable) {
        if let table = root.table("history") { history = HistorySettings.read(table); table.finish() }
        if let table = root.table("digest") { digest = DigestSettings.read(table); table.finish() }
    }

    /// Each rule's `context_window` must hold a sane number of slots at `history.resolution`.
    func validateHistory(_ root: ConfigTable) {
        let resolution = (history ?? HistorySettings()).resolution
        for (index, rule) in premium.rules.enumerated() {
            guard let window = rule.contextWindow else { continue }
            let slots = window / resolution
            if slots > Double(HistorySettings.maximumSlots) {
                root.diagnosticsSink.error(
                    "premium.rules[\(index)].context_window",
                    "\(DurationText.format(window)) at history.resolution \(DurationText.format(resolution)) is "
                        + "\(Int(slots)) samples per key; at most \(HistorySettings.maximumSlots) (use a coarser resolution or a shorter window)",
                    at: nil)
            }
        }
    }
}
