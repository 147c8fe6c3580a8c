import Foundation
import MarketAlertCore
import MarketAlertKit

/// The `source/state` notification of a damaged state store that was kept aside.
package enum StateRecoveryEvent {
    package static func make(_ recovery: SQLiteStore.Recovery, now: Date) -> AlertEvent {
        let summary = "state store damaged (\(recovery.reason)); kept aside as \(recovery.keptAt) and started afresh: "
            + "alerts that were firing may notify again"
        return AlertEvent(
            id: EventID.make(), key: "source/state", kind: .source, status: AlertEvent.Status.firing, severity: .critical, at: now,
            summary: summary, source: SourceDetail(name: "state", error: recovery.reason, lastSuccess: nil, consecutiveFailures: nil))
    }
}
