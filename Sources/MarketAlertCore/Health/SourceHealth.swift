import Foundation

/// Health of one data source (an exchange, an FX provider, TWSE): fires a `source/<name>` alert after
/// `after_failures` consecutive failures or `after_silence` without a success, resolves on the next success.
package struct SourceHealth: Sendable, Equatable, Codable {
    package enum Action: Sendable, Equatable {
        case none, fire, resolve
    }

    package private(set) var consecutiveFailures = 0
    package private(set) var lastSuccess: Date?
    package private(set) var lastError: String?
    package private(set) var firing = false
    /// Start of the quiet clock (time without a success) when there has been no success yet.
    package private(set) var watchingSince: Date

    package init(since: Date) { watchingSince = since }

    package mutating func recordSuccess(now: Date) -> Action {
        consecutiveFailures = 0
        lastSuccess = now
        lastError = nil
        guard firing else { return .none }
        firing = false
        return .resolve
    }

    /// - Parameter quietApplies: whether `after_silence` (time without a success) counts for this source (exchanges, fetched on a
    ///   beat); FX fallbacks and IPO sources, called on demand or hourly, alert on consecutive failures only.
    package mutating func recordFailure(_ error: String, now: Date, policy: SourceAlertSettings, quietApplies: Bool = true) -> Action {
        consecutiveFailures += 1
        lastError = error
        return check(now: now, policy: policy, quietApplies: quietApplies)
    }

    /// When time without a success alone would fire the alert (nil while firing).
    package func quietDeadline(policy: SourceAlertSettings) -> Date? {
        guard !firing else { return nil }
        return max(lastSuccess ?? watchingSince, watchingSince).addingTimeInterval(policy.afterSilence.seconds)
    }

    /// The same health, watched afresh from `now` (a restored state at a new process's start).
    package func restarted(at now: Date) -> SourceHealth {
        var copy = self
        copy.watchingSince = now
        return copy
    }

    /// Re-checks the time without a success (called on the evaluation tick even when no poll completed).
    package mutating func check(now: Date, policy: SourceAlertSettings, quietApplies: Bool = true) -> Action {
        guard !firing else { return .none }
        // Quiet time counts from the later of the last success and the start of watching (this process's start
        // or the source's addition), so a restart is not judged on the previous run's last success.
        let quietFor = now.timeIntervalSince(max(lastSuccess ?? watchingSince, watchingSince))
        let failing = consecutiveFailures >= policy.afterFailures
        // Quiet time counts from the start of watching: a source that never answered is as quiet as one
        // that stopped.
        let quiet = quietApplies && quietFor >= policy.afterSilence.seconds
        guard failing || quiet else { return .none }
        firing = true
        return .fire
    }
}
