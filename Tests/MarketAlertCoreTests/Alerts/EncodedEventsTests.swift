import Foundation
import MarketAlertCore
import Testing

/// `AlertEvent.jsonData()` encodes an event once for the store, stdout and webhooks: a second writer of an
/// equal event gets the very bytes a fresh encoding gives, and an event that changed in any field (the same
/// id, another status or summary) is encoded anew, never answered with the bytes of what it was.
struct EncodedEventsTests {
    static func event(_ id: String, status: String = "firing", summary: String = "BTC premium 0.84%") -> AlertEvent {
        AlertEvent(
            id: id, key: "premium/kimchi/BTC", kind: .premium, status: status, severity: .warning,
            at: Date(timeIntervalSince1970: 1_764_000_000.125), summary: summary)
    }

    @Test func anEqualEventGetsTheBytesAFreshEncodingGives() throws {
        let id = "memo-\(UUID().uuidString)"
        let first = try Self.event(id).jsonData()
        let again = try Self.event(id).jsonData()
        let fresh = try AlertEvent.makeEncoder().encode(Self.event(id))
        #expect(first == fresh && again == fresh)
    }

    @Test func theSlotsHandBackWhatWasRememberedForEqualEventsOnly() throws {
        let memo = EncodedEvents()
        let events = (0..<10).map { Self.event("e\($0)") }
        for event in events { memo.remember(event, Data(event.id.utf8)) }
        // Eight slots: the first two were replaced, the last eight are there.
        #expect(memo.data(for: events[0]) == nil && memo.data(for: events[1]) == nil)
        for event in events.dropFirst(2) { #expect(memo.data(for: event) == Data(event.id.utf8)) }
        #expect(memo.data(for: Self.event("e9", status: "resolved")) == nil)
    }

    @Test func aChangedEventWithTheSameIDIsEncodedAnew() throws {
        let id = "memo-\(UUID().uuidString)"
        let firing = try Self.event(id).jsonData()
        for changed in [Self.event(id, status: "resolved"), Self.event(id, summary: "BTC premium 0.85%")] {
            #expect(EncodedEvents.shared.data(for: changed) == nil)
            let data = try changed.jsonData()
            #expect(data != firing)
            #expect(data == (try AlertEvent.makeEncoder().encode(changed)))
        }
        #expect(try Self.event(id).jsonLine() == String(decoding: firing, as: UTF8.self))
    }

    @Test func moreEventsThanSlotsStillEncodeCorrectly() throws {
        let ids = (0..<20).map { "memo-\($0)-\(UUID().uuidString)" }
        for id in ids { _ = try Self.event(id).jsonData() }
        for id in ids {
            #expect(try Self.event(id).jsonData() == (try AlertEvent.makeEncoder().encode(Self.event(id))))
        }
    }
}
