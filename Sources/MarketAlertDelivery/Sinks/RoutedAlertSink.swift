import Foundation
import MarketAlertCore

/// A sink of several durable targets (the outbox: webhooks, email) that v3 routes choose among.
package protocol RoutedAlertSink: AlertSink {
    /// Queues `event` for the named targets only (nil: every target whose `kinds` include the event's kind);
    /// a target's own `kinds` still applies. Returns the targets it was queued for.
    @discardableResult
    func deliver(_ event: AlertEvent, toTargets names: [String]?) async throws -> [String]
}
