import Foundation

/// Thresholds and timing of a leveled alert (a premium rule, an FX move alert).
package struct LeveledAlertPolicy: Sendable, Equatable {
    /// Ascending thresholds; crossing one upward fires (or escalates) with that level.
    package var levels: [AlertLevel]
    /// Falling below this resolves a firing alert. Below the lowest level, so values in between hold the
    /// current state: that gap is the hysteresis that keeps a value flapping around a level quiet.
    package var clearBelow: Double
    /// The condition must hold this long before the first notification.
    package var forDuration: Duration
    /// Re-notify a still-firing alert this often; zero never repeats.
    package var repeatInterval: Duration
    /// v3 `keep_firing_for` (as Prometheus's): a firing alert whose value falls below `clearBelow` stays
    /// firing this long before it resolves; a value back at or above `clearBelow` meanwhile keeps it firing
    /// as if it had never dipped. Zero resolves at once.
    package var keepFiringFor: Duration

    package init(
        levels: [AlertLevel], clearBelow: Double, forDuration: Duration = .zero, repeatInterval: Duration = .zero,
        keepFiringFor: Duration = .zero
    ) {
        self.levels = levels
        self.clearBelow = clearBelow
        self.forDuration = forDuration
        self.repeatInterval = repeatInterval
        self.keepFiringFor = keepFiringFor
    }

    package init(_ rule: PremiumRule) {
        self.init(
            levels: rule.levels, clearBelow: rule.clearPct, forDuration: rule.forDuration, repeatInterval: rule.repeatInterval,
            keepFiringFor: rule.keepFiringFor)
    }

    /// Index of the highest level `value` reaches, if any.
    package func levelIndex(for value: Double) -> Int? {
        levels.lastIndex { value >= $0.pct }
    }
}

/// The lifecycle of one alert key, in the manner of Prometheus Alertmanager: inactive → pending (for `for`)
/// → firing, escalating to higher levels, repeating every `repeat_interval`, resolving below `clear`.
///
/// A pure value: `observe` takes the current value and `now` and returns what to notify. It is `Codable`
/// so the state store can persist it, and a restart neither re-fires nor forgets.
package struct LeveledAlertStateMachine: Sendable, Equatable, Codable {
    package enum Phase: Sendable, Equatable, Codable {
        case inactive
        case pending(since: Date)
        /// `level` is the highest level notified since firing began; it only goes up until resolved, so a
        /// value oscillating around a higher level notifies once, not on every crossing.
        case firing(level: Int, since: Date, lastNotified: Date)
    }

    package enum Action: Sendable, Equatable {
        case none
        /// First notification (after `for`).
        case fire(level: Int)
        /// A higher level was crossed while firing.
        case escalate(level: Int)
        /// `repeat_interval` elapsed while firing.
        case repeatNotification(level: Int)
        case resolve
    }

    package private(set) var phase: Phase = .inactive
    /// The last value observed (nil when the last observation had none).
    package private(set) var lastValue: Double?
    /// While firing under `keep_firing_for`: since when the value has been below `clearBelow` (nil while it is
    /// not). Not part of the phase, so a state stored by an earlier version reads as it was.
    package private(set) var clearingSince: Date?

    package init() {}

    package var isFiring: Bool {
        if case .firing = phase { return true }
        return false
    }

    /// Feeds one observation. `value == nil` means "no value right now" (too few fresh prices): it never fires
    /// or resolves anything, and a pending condition has to start over, since it was not seen to hold.
    package mutating func observe(_ value: Double?, now: Date, policy: LeveledAlertPolicy) -> Action {
        lastValue = value
        switch phase {
        case .inactive:
            guard let value, let level = policy.levelIndex(for: value) else { return .none }
            if policy.forDuration <= .zero {
                phase = .firing(level: level, since: now, lastNotified: now)
                return .fire(level: level)
            }
            phase = .pending(since: now)
            return .none

        case .pending(let since):
            guard let value, let level = policy.levelIndex(for: value) else {
                phase = .inactive
                return .none
            }
            guard now.timeIntervalSince(since) >= policy.forDuration.seconds else { return .none }
            phase = .firing(level: level, since: now, lastNotified: now)
            return .fire(level: level)

        case .firing(let firedLevel, let since, let lastNotified):
            let notified = min(firedLevel, policy.levels.count - 1)
            guard let value else { return .none }
            if value < policy.clearBelow {
                if policy.keepFiringFor > .zero {
                    // Kept firing until the value has stayed below the clear level for `keep_firing_for`.
                    let below = clearingSince ?? now
                    clearingSince = below
                    guard now.timeIntervalSince(below) >= policy.keepFiringFor.seconds else { return .none }
                }
                phase = .inactive
                clearingSince = nil
                return .resolve
            }
            clearingSince = nil
            if let level = policy.levelIndex(for: value), level > notified {
                phase = .firing(level: level, since: since, lastNotified: now)
                return .escalate(level: level)
            }
            if policy.repeatInterval > .zero, now.timeIntervalSince(lastNotified) >= policy.repeatInterval.seconds {
                phase = .firing(level: notified, since: since, lastNotified: now)
                return .repeatNotification(level: notified)
            }
            return .none
        }
    }

    /// The next instant at which time alone could change something (a `for` expiring, a repeat falling due),
    /// so a shell can schedule its next evaluation instead of polling.
    package func nextDeadline(policy: LeveledAlertPolicy) -> Date? {
        switch phase {
        case .inactive: nil
        case .pending(let since): since.addingTimeInterval(policy.forDuration.seconds)
        case .firing(_, _, let lastNotified):
            Self.earlier(
                policy.repeatInterval > .zero ? lastNotified.addingTimeInterval(policy.repeatInterval.seconds) : nil,
                // Resolving under `keep_firing_for` needs time alone only while the last value is still below
                // the clear level (no value: the next one decides, as it would without keep_firing_for).
                lastValue != nil ? clearingSince?.addingTimeInterval(policy.keepFiringFor.seconds) : nil)
        }
    }

    private static func earlier(_ a: Date?, _ b: Date?) -> Date? {
        guard let a else { return b }
        guard let b else { return a }
        return min(a, b)
    }
}
