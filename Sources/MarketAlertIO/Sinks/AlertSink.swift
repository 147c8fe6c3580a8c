import Foundation
import MarketAlertCore

/// A destination for alert events (stdout, the journal, the webhook outbox).
///
/// - Important: `deliver` must return quickly and must not throw: a sink handles and logs its own failures.
///   Slow delivery (webhooks) happens behind a durable queue, never inline.
package protocol AlertSink: Sendable {
    var name: String { get }
    func deliver(_ event: AlertEvent) async
}
