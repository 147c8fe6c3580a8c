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
    /// Start of the silence clock when there has been no success yet.
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

    package mutating func recordFailure(_ error: String, now: Date, policy: SourceAlertSettings) -> Action {
        consecutiveFailures += 1
        lastError = error
        return check(now: now, policy: policy)
    }

    /// Re-checks the silence condition (called on the evaluation tick even when no poll completed).
    package mutating func check(now: Date, policy: SourceAlertSettings) -> Action {
        guard !firing else { return .none }
        let silentFor = now.timeIntervalSince(lastSuccess ?? watchingSince)
        let failing = consecutiveFailures >= policy.afterFailures
        let silent = silentFor >= policy.afterSilence.seconds && (consecutiveFailures > 0 || lastSuccess != nil)
        guard failing || silent else { return .none }
        firing = true
        return .fire
    }
}
