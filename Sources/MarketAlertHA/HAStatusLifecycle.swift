import Foundation
import MarketAlertCore
import MarketAlertKit
import MarketAlertStorage
import Synchronization

/// `STATUS=` in an HA group starts with the instance's role, and is sent again when the role changes:
/// `leader (epoch 7); ready: 7 exchanges ok; …` or `standby; ready: …`.
package final class HAStatusLifecycle: LifecycleObserver {
    private let base: any LifecycleObserver
    private let role: HARole
    private let line = Mutex<String?>(nil)

    package init(base: any LifecycleObserver, role: HARole) {
        self.base = base
        self.role = role
    }

    package func status(_ line: String) {
        self.line.withLock { $0 = line }
        base.status(compose(line))
    }

    /// The role changed: the last line again, with the new role.
    package func roleChanged() {
        if let line = line.withLock({ $0 }) { base.status(compose(line)) }
    }

    func compose(_ line: String) -> String {
        switch role.role {
        case .leader: "leader (epoch \(role.epoch ?? 0)); \(line)"
        case .standby: "standby; \(line)"
        case .single: line
        }
    }

    package func ready() { base.ready() }
    package func reloading() { base.reloading() }
    package func watchdog() { base.watchdog() }
    package func stopping() { base.stopping() }
    package var watchdogInterval: Duration? { base.watchdogInterval }
}
