import Foundation
import MarketAlertCore
import MarketAlertIO
import Testing

@Suite struct SilenceStoreTests {
    let t0 = Date(timeIntervalSince1970: 1_773_108_000)

    func silence(_ id: String, from: TimeInterval, to: TimeInterval) -> Silence {
        Silence(
            id: id, matchers: SilenceMatchers(key: "premium/*", kind: .premium, severity: .warning), startsAt: t0.addingTimeInterval(from),
            endsAt: t0.addingTimeInterval(to), comment: "c", createdBy: "t", createdAt: t0.addingTimeInterval(from))
    }

    @Test func silencesRoundTripAndEndedOnesAreKeptAWeek() async throws {
        let store = try SQLiteStore(inMemory: ())
        try await store.insertSilence(silence("old", from: -9 * 86_400, to: -8 * 86_400))
        try await store.insertSilence(silence("recent", from: -2 * 86_400, to: -86_400))
        try await store.insertSilence(silence("active", from: -60, to: 3600))
        let listed = try await store.silences(now: t0)
        #expect(listed.map(\.id) == ["recent", "active"])
        #expect(listed.last == silence("active", from: -60, to: 3600))
        // The week-old one is gone for good, not only hidden.
        #expect(try await store.silences(now: t0.addingTimeInterval(-10 * 86_400)).map(\.id) == ["recent", "active"])
    }

    @Test func expiringEndsNowAndAFutureSilenceNeverStarts() async throws {
        let store = try SQLiteStore(inMemory: ())
        try await store.insertSilence(silence("active", from: -60, to: 3600))
        try await store.insertSilence(silence("future", from: 600, to: 3600))
        #expect(try await store.expireSilence(id: "active", at: t0))
        #expect(try await store.expireSilence(id: "future", at: t0))
        #expect(try await !store.expireSilence(id: "missing", at: t0))
        let listed = Dictionary(uniqueKeysWithValues: try await store.silences(now: t0).map { ($0.id, $0) })
        #expect(listed["active"]?.endsAt == t0)
        #expect(listed["active"]?.startsAt == t0.addingTimeInterval(-60))
        #expect(listed["future"]?.startsAt == t0 && listed["future"]?.endsAt == t0)
        #expect(listed["future"]?.everActive == false)
        // Expiring an ended silence again changes nothing.
        #expect(try await store.expireSilence(id: "active", at: t0.addingTimeInterval(100)))
        #expect(try await store.silences(now: t0).first { $0.id == "active" }?.endsAt == t0)
        try await store.markSilenceEndsHandled(["active"], at: t0.addingTimeInterval(1))
        #expect(try await store.silences(now: t0).first { $0.id == "active" }?.endHandledAt == t0.addingTimeInterval(1))
    }
}
