import Foundation
import MarketAlertCore
import MarketAlertKit
import MarketAlertStorage

/// A sink that hands events to its own writer instead of writing them inline (stdout): `submit` returns at
/// once, and when the destination could not take the event without blocking, the writer's thread writes it
/// later and says so through ``SinkWriteReports``. The publisher keeps such an event pending until that
/// report, so a stdout nobody reads delays nothing else and loses nothing.
package protocol QueuedAlertSink: AlertSink {
    /// Throws `SinkFailure` when the event was neither written nor queued (a failed write, a full queue).
    func submit(_ event: AlertEvent) throws -> SinkReceipt
}

extension QueuedAlertSink {
    package func deliver(_ event: AlertEvent) async throws { _ = try submit(event) }
}

/// Whether a queued sink has already written an event.
package enum SinkReceipt: Sendable, Equatable {
    case written
    /// Its writer reports the outcome later (``SinkWriteReport``).
    case queued
}

/// The later outcome of an event a queued sink did not write at once.
package enum SinkWriteReport: Sendable, Equatable {
    case written(sink: String, eventID: String)
    /// The first failed write of this event; the sink's writer goes on retrying it with backoff.
    case failed(sink: String, eventID: String, reason: String)
}

/// The channel from every queued sink's writer thread to the publisher (who follows it, `AlertPublisher.follow`).
/// `send` never blocks.
package final class SinkWriteReports: Sendable {
    package let stream: AsyncStream<SinkWriteReport>
    private let continuation: AsyncStream<SinkWriteReport>.Continuation

    package init() {
        (stream, continuation) = AsyncStream.makeStream(of: SinkWriteReport.self)
    }

    package func send(_ report: SinkWriteReport) { continuation.yield(report) }

    package func finish() { continuation.finish() }
}
