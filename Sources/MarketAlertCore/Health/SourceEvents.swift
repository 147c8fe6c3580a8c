import Foundation

/// Builds `source/<name>` alert events from `SourceHealth` transitions.
package enum SourceEvents {
    package static func key(_ source: String) -> String { "source/\(source)" }

    package static func event(
        id: String, source: String, health: SourceHealth, action: SourceHealth.Action, severity: Severity, now: Date
    ) -> AlertEvent? {
        switch action {
        case .none:
            return nil
        case .fire:
            let since = health.lastSuccess.map { "last success \(Timestamp.rfc3339($0))" } ?? "no success yet"
            let error = health.lastError ?? "unknown error"
            return AlertEvent(
                id: id, key: key(source), kind: .source, status: AlertEvent.Status.firing, severity: severity, at: now,
                summary: "\(source) failing: \(error) (\(health.consecutiveFailures) consecutive failures, \(since))",
                source: SourceDetail(
                    name: source, error: error, lastSuccess: health.lastSuccess, consecutiveFailures: health.consecutiveFailures))
        case .resolve:
            return AlertEvent(
                id: id, key: key(source), kind: .source, status: AlertEvent.Status.resolved, severity: .info, at: now,
                summary: "\(source) recovered",
                source: SourceDetail(name: source, error: nil, lastSuccess: health.lastSuccess, consecutiveFailures: 0))
        }
    }
}
