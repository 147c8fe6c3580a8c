import Foundation
import MarketAlertKit
import Synchronization

/// What this instance is in its group, as status, `/readyz`, `STATUS=` and metrics tell it: `single` (no
/// `ha:`), `leader` or `standby`. Set by the lease keeper at each change; read from anywhere without waiting.
package final class HARole: Sendable {
    package enum Role: String, Sendable { case single, leader, standby }

    /// The instance's name (`ha.instance`, else hostname and pid); nil without `ha:`.
    package let instance: String?
    private let state: Mutex<(role: Role, epoch: Int64?)>

    package init(instance: String?) {
        self.instance = instance
        state = Mutex((instance == nil ? .single : .standby, nil))
    }

    /// A single instance, for everything built without `ha:`.
    package static let single = HARole(instance: nil)

    package var role: Role { state.withLock { $0.role } }
    package var epoch: Int64? { state.withLock { $0.epoch } }

    package func lead(epoch: Int64) { state.withLock { $0 = (.leader, epoch) } }
    package func standBy() { state.withLock { $0 = (.standby, nil) } }

    /// `marketalertd_ha_leader{instance}`: nil without `ha:`.
    package var leaderGauge: (instance: String, value: Double)? {
        guard let instance else { return nil }
        return (instance, role == .leader ? 1 : 0)
    }

    /// hostname and pid: unique per process on a host, readable in status and logs.
    package static func defaultInstanceName() -> String {
        "\(ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)"
    }
}
