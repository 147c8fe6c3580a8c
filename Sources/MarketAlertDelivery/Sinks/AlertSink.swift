import Foundation
import MarketAlertCore
import MarketAlertKit
import MarketAlertStorage

/// A destination for alert events (stdout, the journal, the webhook outbox).
///
/// - Important: `deliver` must return quickly. It throws `SinkFailure` when the event did not get through
///   (a failed write, a queue that cannot be written); the publisher logs it, keeps the event pending and
///   retries that sink, while the other sinks go on. Slow delivery (webhooks) happens behind a durable
///   queue, never inline.
package protocol AlertSink: Sendable {
    var name: String { get }
    func deliver(_ event: AlertEvent) async throws
}

/// A sink could not take an event.
package struct SinkFailure: Error, CustomStringConvertible, Sendable {
    package var sink: String
    package var message: String

    package init(sink: String, message: String) {
        self.sink = sink
        self.message = message
    }

    package var description: String { "\(sink): \(message)" }
}
