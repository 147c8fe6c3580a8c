import Foundation
import MarketAlertCore
import MarketAlertKit
import MarketAlertStorage

/// Events a sink failed to take, waiting for a retry of that sink. Bounded: past `capacity` the oldest
/// entry is given up (and returned, so the caller can say so).
package struct SinkRetryQueue {
    package struct Entry {
        package var event: AlertEvent
        package var sink: String
        package var attempts: Int
    }

    private(set) var entries: [Entry] = []
    package let capacity: Int
    /// Attempts per entry before it is given up.
    package let maximumAttempts: Int

    package init(capacity: Int = 1_000, maximumAttempts: Int = 50) {
        self.capacity = capacity
        self.maximumAttempts = maximumAttempts
    }

    package var isEmpty: Bool { entries.isEmpty }

    /// How long until the waiting entries are tried again on their own: 5 s after a first failure, doubling
    /// with each failed retry of the least-tried entry, at most 5 minutes.
    package var retryDelay: TimeInterval {
        let attempts = entries.map(\.attempts).min() ?? 1
        return min(5 * pow(2, Double(min(attempts, 16) - 1)), 300)
    }

    /// Queues a retry; returns an event given up to make room or because it failed too often.
    package mutating func add(_ event: AlertEvent, sink: String, attempts: Int = 1) -> AlertEvent? {
        guard attempts < maximumAttempts else { return event }
        entries.append(Entry(event: event, sink: sink, attempts: attempts))
        guard entries.count > capacity else { return nil }
        return entries.removeFirst().event
    }

    package mutating func takeAll() -> [Entry] {
        defer { entries = [] }
        return entries
    }

    /// Whether no other sink still waits for `eventID` (so it may be cleared once this one succeeds).
    package func isLastFor(_ eventID: String) -> Bool { !entries.contains { $0.event.id == eventID } }
}
