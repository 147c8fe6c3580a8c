import Foundation
import MarketAlertCore
import Testing

/// A takeover and premium history: the standby's own observations keep giving context, and the digest's day
/// is the group's (what the old leader committed), so a day's digest is sent once by the group, not once per
/// instance.
@Suite struct HistoryAdoptionTests {
    typealias H = HistoryEngineTests
    static let start = HistoryEngineTests.start  // 08:58 Seoul
    static let due = start + 120  // 09:00 Seoul

    static func digests(_ actions: [EngineAction]) -> [AlertEvent] {
        EngineTestKit.events(actions).filter { $0.kind == .digest }
    }

    @Test func theStandbysObservedHistoryStillGivesContextAfterTheTakeover() throws {
        var standby = EngineTestKit.engine(H.settings(), at: Self.start)
        _ = standby.start(now: Self.start)
        for minute in 0..<12 {  // 12 quiet minutes: 12 samples at 0.01 ... 0.012
            let at = Self.start + Double(minute) * 60
            _ = H.quotes(&standby, bybit: minute.isMultiple(of: 2) ? "100010" : "100012", at: at)
            _ = standby.advance(now: at + 60)
        }
        let takeover = Self.start + 12 * 60 + 1
        _ = standby.adopt(AlertEngine.Restored(), now: takeover)  // the store had no history to offer
        let event = try #require(EngineTestKit.events(H.quotes(&standby, bybit: "100070", at: takeover + 1)).first)
        let context = try #require(event.premium?.context, "adoption dropped the observed history")
        #expect(context.samples == 12)
        #expect(context.percentile == 100)
    }

    @Test func aDigestTheOldLeaderSentIsNotSentAgainByTheNewLeader() {
        // The standby's own 09:00 digest went nowhere; the old leader's is in the store.
        var standby = EngineTestKit.engine(H.settings(digest: true), at: Self.start)
        _ = standby.start(now: Self.start)
        _ = H.quotes(&standby, bybit: "100020", at: Self.start)
        #expect(Self.digests(standby.advance(now: Self.due)).count == 1)  // decided, published nowhere
        var stored = AlertEngine.Restored()
        stored.digestDay = "2026-11-23"
        #expect(Self.digests(standby.adopt(stored, now: Self.due + 30)).isEmpty)
        #expect(Self.digests(standby.advance(now: Self.due + 3600)).isEmpty)
        #expect(Self.digests(standby.advance(now: Self.due + 86_400)).map(\.key) == ["digest/2026-11-24"])
    }

    @Test func aDigestTheOldLeaderDiedBeforeSendingIsSentByTheNewLeaderOnce() {
        var standby = EngineTestKit.engine(H.settings(digest: true), at: Self.start)
        _ = standby.start(now: Self.start)
        _ = H.quotes(&standby, bybit: "100020", at: Self.start)
        _ = standby.advance(now: Self.due)  // the standby "sent" it: published nowhere
        // The old leader died at 08:59: the group last sent yesterday's.
        var stored = AlertEngine.Restored()
        stored.digestDay = "2026-11-22"
        var warm = HistoryWarmup(settings: H.settings(digest: true), now: Self.due + 5)
        warm.add(HistorySample(rule: "global", asset: "BTC", at: Self.start - 3600, minPct: 0.01, maxPct: 0.03, lastPct: 0.02))
        stored.history = warm
        let sent = Self.digests(standby.adopt(stored, now: Self.due + 5))
        #expect(sent.map(\.key) == ["digest/2026-11-23"])
        #expect(sent.first?.digest?.premium.first?.maxPct == 0.03)
        #expect(Self.digests(standby.advance(now: Self.due + 600)).isEmpty)
    }
}
