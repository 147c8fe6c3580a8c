import Foundation
import Synchronization

extension AlertEvent {
    /// The event's JSON (`makeEncoder`: sorted keys, so equal events give equal bytes), encoded once however
    /// many writers need it. One notification is written by the state store (its pending row), stdout and
    /// each JSON webhook, one after the other; Foundation's encoder took a tenth of a millisecond for a depth
    /// event each time, on the way from the transition to its notification. The last few encodings are kept
    /// (`EncodedEvents`) and handed out again to an equal event; anything else is encoded as before.
    package func jsonData() throws -> Data {
        if let data = EncodedEvents.shared.data(for: self) { return data }
        let data = try Self.makeEncoder().encode(self)
        EncodedEvents.shared.remember(self, data)
        return data
    }
}

/// The last few events encoded, with their bytes. A lookup compares whole events (`==`), so a hit gives exactly
/// the bytes encoding would give; a miss costs a few comparisons. Eight slots cover a publication's events
/// (usually one or two) between the store's commit and the sinks.
package final class EncodedEvents: Sendable {
    package static let shared = EncodedEvents()

    private struct Slots {
        var entries: [(event: AlertEvent, data: Data)] = []
        var next = 0
    }

    private static let capacity = 8
    private let slots = Mutex(Slots())

    package init() {}

    package func data(for event: AlertEvent) -> Data? {
        slots.withLock { slots in slots.entries.first { $0.event.id == event.id && $0.event == event }?.data }
    }

    package func remember(_ event: AlertEvent, _ data: Data) {
        slots.withLock { slots in
            if slots.entries.count < Self.capacity {
                slots.entries.append((event, data))
            } else {
                slots.entries[slots.next] = (event, data)
            }
            slots.next = (slots.next + 1) % Self.capacity
        }
    }
}
