import Foundation
import MarketAlertCore
import Testing

/// History and digest through the pure engine, in virtual time: slots accumulate and are published at their
/// end, the digest falls due at 09:00 Asia/Seoul across a day boundary, firings carry their context.
@Suite struct HistoryEngineTests {
    /// 2026-11-22 23:58:00 UTC = 2026-11-23 08:58 in Seoul.
    static let start = Date(timeIntervalSince1970: 1_795_391_880)

    static func settings(digest: Bool = false) -> Settings {
        var settings = EngineTestKit.settings(rules: [EngineTestKit.rule("global", exchanges: ["binance", "bybit"])])
        settings.history = HistorySettings(resolution: .seconds(60), retention: .seconds(3 * 86_400))
        settings.displayTimeZones = ["Asia/Seoul"]
        if digest { settings.digest = DigestSettings(hour: 9, minute: 0, timeZone: "Asia/Seoul") }
        return settings
    }

    static func quotes(_ engine: inout AlertEngine, bybit: String, at now: Date) -> [EngineAction] {
        var actions = engine.handle(.quotes("binance", [EngineTestKit.quote("binance", "100000", at: now)], .snapshot), now: now)
        actions += engine.handle(.quotes("bybit", [EngineTestKit.quote("bybit", bybit, at: now)], .snapshot), now: now)
        return actions
    }

    static func publications(_ actions: [EngineAction]) -> [Publication] {
        actions.compactMap { if case .publish(let p) = $0 { return p } else { return nil } }
    }

    @Test func aSlotAccumulatesMinMaxLastAndIsPublishedAtItsEndInOneBatch() throws {
        let start = Self.start
        var engine = EngineTestKit.engine(Self.settings(), at: start)
        _ = engine.start(now: start)
        _ = Self.quotes(&engine, bybit: "100020", at: start)  // 0.02%
        _ = Self.quotes(&engine, bybit: "100070", at: start + 10)  // 0.07%: fires notice
        _ = Self.quotes(&engine, bybit: "100030", at: start + 20)  // 0.03%: resolves
        #expect(engine.nextDeadline(after: start + 20) == start + 60)
        // Nothing is written before the slot ends.
        #expect(Self.publications(engine.advance(now: start + 59)).flatMap(\.history).isEmpty)
        let published = Self.publications(engine.advance(now: start + 60))
        let samples = published.flatMap(\.history)
        #expect(samples.count == 1)
        let sample = try #require(samples.first)
        #expect(sample.rule == "global" && sample.asset == "BTC")
        #expect(sample.at == start)
        #expect(abs(sample.minPct - 0.02) < 1e-9 && abs(sample.maxPct - 0.07) < 1e-9 && abs(sample.lastPct - 0.03) < 1e-9)
        #expect(sample.notifications == 2)  // the firing and the resolve
        #expect(published.first?.pruneHistoryBefore == start + 60 - 3 * 86_400)
        // A quiet period writes nothing more and arms no flush.
        #expect(Self.publications(engine.advance(now: start + 200)).flatMap(\.history).isEmpty)
        #expect(engine.premium.history.flushAt == nil)
    }

    @Test func withoutHistoryNothingIsSampledAndNoContextIsGiven() {
        var settings = Self.settings()
        settings.history = nil
        var engine = EngineTestKit.engine(settings, at: Self.start)
        _ = engine.start(now: Self.start)
        let events = EngineTestKit.events(Self.quotes(&engine, bybit: "100070", at: Self.start))
        #expect(events.count == 1 && events.first?.premium?.context == nil)
        #expect(Self.publications(engine.advance(now: Self.start + 120)).flatMap(\.history).isEmpty)
        #expect(engine.premium.history.flushAt == nil)
    }

    @Test func aFiringCarriesItsContextOnceTheWindowHoldsTenSamples() throws {
        let start = Self.start
        var warm = HistoryWarmup(settings: Self.settings(), now: start)
        var stored = (1...30).map { minute in
            let pct = 0.01 + Double(minute % 10) * 0.001  // 0.01 ... 0.019
            return HistorySample(rule: "global", asset: "BTC", at: start - Double(minute) * 60, minPct: pct, maxPct: pct, lastPct: pct)
        }
        stored.append(HistorySample(rule: "global", asset: "BTC", at: start - 45 * 60, minPct: 0.05, maxPct: 0.08, lastPct: 0.06))
        for sample in stored.sorted(by: { $0.at < $1.at }) { warm.add(sample) }  // as the store reads them: oldest first
        var restored = AlertEngine.Restored()
        restored.history = warm
        var engine = EngineTestKit.engine(Self.settings(), restored: restored, at: start)
        _ = engine.start(now: start)
        let event = try #require(EngineTestKit.events(Self.quotes(&engine, bybit: "100060", at: start)).first)  // 0.06%
        let context = try #require(event.premium?.context)
        #expect(context.samples == 31)
        #expect(abs(context.percentile - 30.0 / 31 * 100) < 1e-9)
        #expect(context.maxPct == 0.08)
        #expect(context.maxAt == start - 45 * 60)
        #expect(event.summary.contains("0.06% is at or above 96% of the last 30 days (median 0.015"), "\(event.summary)")
        #expect(event.summary.hasSuffix("max 0.08% on 23 Nov)"), "\(event.summary)")  // 08:13 in Seoul
    }

    @Test func theDigestFallsDueAt0900SeoulAcrossTheDayBoundaryOncePerDay() throws {
        let start = Self.start  // 08:58 Seoul
        var engine = EngineTestKit.engine(Self.settings(digest: true), at: start)
        _ = engine.start(now: start)
        let due = start + 120  // 2026-11-23 00:00 UTC = 09:00 Seoul
        _ = Self.quotes(&engine, bybit: "100070", at: start)
        _ = engine.advance(now: start + 60)  // the loop runs every deadline: here the first slot's end
        _ = Self.quotes(&engine, bybit: "100090", at: start + 70)
        _ = Self.quotes(&engine, bybit: "100010", at: start + 115)
        #expect(engine.nextDeadline(after: start + 115) == due)
        let actions = engine.advance(now: due)
        let digests = EngineTestKit.events(actions).filter { $0.kind == .digest }
        let digest = try #require(digests.first)
        #expect(digests.count == 1)
        #expect(digest.key == "digest/2026-11-23")
        #expect(digest.status == "info")
        let row = try #require(digest.digest?.premium.first)
        #expect(digest.digest?.day == "2026-11-23" && digest.digest?.timeZone == "Asia/Seoul")
        #expect(abs(row.maxPct - 0.09) < 1e-9 && abs(row.minPct - 0.01) < 1e-9 && abs(row.lastPct - 0.01) < 1e-9)
        #expect(row.maxAt == start + 60)
        #expect(row.notifications == 2)  // fired at 0.07, resolved at 0.01
        let record = Self.publications(actions).flatMap(\.states).first { $0.kind == "digest" }
        #expect(record.map { String(decoding: $0.data, as: UTF8.self) } == #"{"day":"2026-11-23"}"#)
        // The next one is a day later; nothing in between.
        #expect(EngineTestKit.events(engine.advance(now: due + 3600)).filter { $0.kind == .digest }.isEmpty)
        let next = EngineTestKit.events(engine.advance(now: due + 86_400)).filter { $0.kind == .digest }
        #expect(next.map(\.key) == ["digest/2026-11-24"])
        // Only the slot opened at 09:00:00 by the due time's own evaluation (then quotes went stale): it belongs
        // to the next day's period, not to the one just sent.
        #expect(next.first?.digest?.premium.map { abs($0.maxPct - 0.01) < 1e-9 } == [true])
    }

    @Test func aDigestAlreadySentTodayIsNotSentAgainAfterARestartAndAMissedOneIsSentLateOnce() {
        let due = Self.start + 120
        var restored = AlertEngine.Restored()
        restored.digestDay = "2026-11-23"
        var engine = EngineTestKit.engine(Self.settings(digest: true), restored: restored, at: due + 600)
        #expect(EngineTestKit.events(engine.start(now: due + 600)).isEmpty)
        #expect(EngineTestKit.events(engine.advance(now: due + 900)).filter { $0.kind == .digest }.isEmpty)
        // Down at 09:00 on the 24th, up at 11:00: the 24th's digest goes out late, at start, once.
        var late = AlertEngine.Restored()
        late.digestDay = "2026-11-23"
        var warm = HistoryWarmup(settings: Self.settings(digest: true), now: due + 86_400 + 7200)
        warm.add(HistorySample(rule: "global", asset: "BTC", at: due + 3600, minPct: 0.01, maxPct: 0.2, lastPct: 0.03, notifications: 1))
        late.history = warm
        var again = EngineTestKit.engine(Self.settings(digest: true), restored: late, at: due + 86_400 + 7200)
        let events = EngineTestKit.events(again.start(now: due + 86_400 + 7200))
        #expect(events.map(\.key) == ["digest/2026-11-24"])
        #expect(events.first?.summary.contains("sent late") == true)
        #expect(events.first?.digest?.premium.first?.maxPct == 0.2)
        #expect(EngineTestKit.events(again.advance(now: due + 86_400 + 7300)).filter { $0.kind == .digest }.isEmpty)
    }
}
