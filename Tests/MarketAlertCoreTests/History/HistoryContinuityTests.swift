import Foundation
import MarketAlertCore
import Testing

/// The history slot in progress across a graceful stop and a restart, across a reload that changes the
/// resolution (the slot is published, the rings rebuilt from the store's samples), and across a reload that
/// re-indexes the keys; in virtual time, through the pure engine.
@Suite struct HistoryContinuityTests {
    /// 2026-11-22 23:58:00 UTC (a minute boundary).
    static let start = HistoryEngineTests.start

    static func settings(resolution: Int64 = 60, rules: [PremiumRule]? = nil) -> Settings {
        var settings = EngineTestKit.settings(rules: rules ?? [EngineTestKit.rule("global", exchanges: ["binance", "bybit"])])
        settings.history = HistorySettings(resolution: .seconds(resolution), retention: .seconds(3 * 86_400))
        return settings
    }

    static func history(_ actions: [EngineAction]) -> [HistorySample] {
        HistoryEngineTests.publications(actions).flatMap(\.history)
    }

    /// What a store holds after upserting `samples` (min of the minima, max of the maxima, the later last,
    /// notifications added), as both backends merge a slot written twice.
    static func upsert(_ samples: [HistorySample], into rows: inout [String: HistorySample]) {
        for sample in samples {
            let id = "\(sample.key)@\(sample.at.timeIntervalSince1970)"
            guard var row = rows[id] else { rows[id] = sample; continue }
            row.minPct = min(row.minPct, sample.minPct)
            row.maxPct = max(row.maxPct, sample.maxPct)
            row.lastPct = sample.lastPct
            row.notifications += sample.notifications
            rows[id] = row
        }
    }

    @Test func aGracefulStopWritesTheSlotInProgressAndTheNextStartGoesOnWithIt() throws {
        let start = Self.start
        var first = EngineTestKit.engine(Self.settings(), at: start)
        _ = first.start(now: start)
        _ = HistoryEngineTests.quotes(&first, bybit: "100070", at: start + 5)  // 0.07%: fires
        _ = HistoryEngineTests.quotes(&first, bybit: "100030", at: start + 10)  // 0.03%: resolves
        let written = Self.history(first.stop(now: start + 12))
        #expect(written.count == 1)
        let partial = try #require(written.first)
        #expect(partial.at == start && abs(partial.minPct - 0.03) < 1e-9 && abs(partial.maxPct - 0.07) < 1e-9)
        #expect(partial.notifications == 2)
        var rows: [String: HistorySample] = [:]
        Self.upsert(written, into: &rows)

        // Up again 20 s later, within the same minute: the slot is restored from the stored row.
        var warm = HistoryWarmup(settings: Self.settings(), now: start + 32)
        for row in rows.values.sorted(by: { $0.at < $1.at }) { warm.add(row) }
        var restored = AlertEngine.Restored()
        restored.history = warm
        var second = EngineTestKit.engine(Self.settings(), restored: restored, at: start + 32)
        _ = second.start(now: start + 32)
        #expect(second.premium.history.openSamples().map { abs($0.maxPct - 0.07) < 1e-9 } == [true])
        _ = HistoryEngineTests.quotes(&second, bybit: "100040", at: start + 40)  // 0.04%
        #expect(second.nextDeadline(after: start + 40) == start + 60)
        let closed = Self.history(second.advance(now: start + 60))
        let sample = try #require(closed.first)
        #expect(closed.count == 1)
        #expect(sample.at == start && abs(sample.minPct - 0.03) < 1e-9 && abs(sample.maxPct - 0.07) < 1e-9)
        #expect(abs(sample.lastPct - 0.04) < 1e-9)
        // The two notifications are the stored row's; the slot's flush adds none of them again.
        #expect(sample.notifications == 0)
        Self.upsert(closed, into: &rows)
        #expect(rows.count == 1 && rows.values.first?.notifications == 2 && rows.values.first.map { abs($0.maxPct - 0.07) < 1e-9 } == true)
    }

    @Test func aRowOfAnEndedSlotIsHistoryNotTheOpenSlot() {
        let start = Self.start
        var warm = HistoryWarmup(settings: Self.settings(), now: start + 90)
        warm.add(HistorySample(rule: "global", asset: "BTC", at: start, minPct: 0.01, maxPct: 0.09, lastPct: 0.02))
        #expect(warm.history.openSamples().isEmpty)
        #expect(warm.history.flushAt == nil)
    }

    @Test func aReloadChangingTheResolutionPublishesTheSlotInProgressAndTheRingsAreRebuiltFromTheStore() throws {
        let start = Self.start
        // Sixty stored minutes (0.010 ... 0.019%) before the start, as the store would give them.
        let stored = (1...60).map { minute in
            let pct = 0.01 + Double(minute % 10) * 0.001
            return HistorySample(rule: "global", asset: "BTC", at: start - Double(minute) * 60, minPct: pct, maxPct: pct, lastPct: pct)
        }.sorted { $0.at < $1.at }
        var warm = HistoryWarmup(settings: Self.settings(), now: start)
        for sample in stored { warm.add(sample) }
        var restored = AlertEngine.Restored()
        restored.history = warm
        var engine = EngineTestKit.engine(Self.settings(), restored: restored, at: start)
        _ = engine.start(now: start)
        _ = HistoryEngineTests.quotes(&engine, bybit: "100020", at: start + 5)  // 0.02%, below the levels

        // 1m → 5m at start + 20: the minute in progress is published now, at 1m.
        let reload = engine.handle(.settings(Self.settings(resolution: 300)), now: start + 20)
        let published = Self.history(reload)
        #expect(published.count == 1)
        #expect(published.first?.at == start && published.first?.maxPct == 0.02)

        // The runtime's rebuild: the stored samples (and the one just published) folded at 5m.
        var rebuilt = PremiumHistory()
        rebuilt.configure(Self.settings(resolution: 300))
        for sample in stored + published { rebuilt.warm(sample) }
        _ = engine.handle(.historyRebuilt(rebuilt), now: start + 21)
        let event = try #require(EngineTestKit.events(HistoryEngineTests.quotes(&engine, bybit: "100060", at: start + 30)).first)
        let context = try #require(event.premium?.context)
        // 60 minutes before the start (22:58 ... 23:57) fall into 13 five-minute slots (22:55 ... 23:55), the
        // minute published at the reload into 23:55.
        #expect(context.samples == 13)
        #expect(context.maxPct == 0.02)

        // Without the rebuild the windows would hold only what closed since: no context.
        var bare = EngineTestKit.engine(Self.settings(), restored: restored, at: start)
        _ = bare.start(now: start)
        _ = bare.handle(.settings(Self.settings(resolution: 300)), now: start + 20)
        let plain = EngineTestKit.events(HistoryEngineTests.quotes(&bare, bybit: "100060", at: start + 30)).first
        #expect(plain != nil && plain?.premium?.context == nil)
    }

    @Test func rebuiltRingsOfAnotherResolutionAreIgnored() {
        var engine = EngineTestKit.engine(Self.settings(), at: Self.start)
        var rebuilt = PremiumHistory()
        rebuilt.configure(Self.settings(resolution: 300))
        rebuilt.warm((1...20).map { HistorySample(rule: "global", asset: "BTC", at: Self.start - Double($0) * 300, minPct: 1, maxPct: 1, lastPct: 1) })
        _ = engine.handle(.historyRebuilt(rebuilt), now: Self.start)
        var held = engine.premium.history
        #expect(held.context("premium/global/BTC", rule: "global", pct: 0.5, now: Self.start) == nil)
    }

    @Test func aReloadThatReindexesTheKeysKeepsTheSlotInProgress() throws {
        let start = Self.start
        var engine = EngineTestKit.engine(Self.settings(), at: start)
        _ = engine.start(now: start)
        _ = HistoryEngineTests.quotes(&engine, bybit: "100070", at: start + 5)
        // A rule ahead of it: `premium/global/BTC` moves to another index of the plan.
        let rules = [
            EngineTestKit.rule("alpha", exchanges: ["binance", "bybit"], assets: ["ETH"]), EngineTestKit.rule("global", exchanges: ["binance", "bybit"]),
        ]
        _ = engine.handle(.settings(Self.settings(rules: rules)), now: start + 10)
        _ = HistoryEngineTests.quotes(&engine, bybit: "100010", at: start + 20)
        let samples = Self.history(engine.advance(now: start + 60))
        let sample = try #require(samples.first { $0.rule == "global" })
        #expect(samples.count == 1)
        #expect(abs(sample.minPct - 0.01) < 1e-9 && abs(sample.maxPct - 0.07) < 1e-9 && abs(sample.lastPct - 0.01) < 1e-9)
    }

    @Test func theOpenSlotsAreFoundByIndexOnceBound() {
        var history = PremiumHistory()
        history.configure(Self.settings())
        let keys = ["premium/global/BTC"]
        history.bind(to: keys)
        history.observe(at: 0, pct: 0.5, now: Self.start)
        history.observe(at: 0, pct: 0.2, now: Self.start + 1)
        history.observe(at: 7, pct: 9, now: Self.start + 2)  // out of range: ignored
        #expect(history.openSamples().map(\.minPct) == [0.2])
        #expect(history.openSamples().map(\.maxPct) == [0.5])
        // Rebinding to an equal list in other storage carries the slot over by key.
        history.bind(to: ["premium/other/ETH", "premium/global/BTC"])
        history.observe(at: 1, pct: 0.9, now: Self.start + 3)
        #expect(history.openSamples().map(\.maxPct) == [0.9])
    }
}

/// The context ring takes slots in any order (a merge of the store's samples under newer ones) and keeps the
/// exact window maximum.
@Suite struct ContextRingMergeTests {
    @Test func anOlderHigherSlotMergedLaterIsTheWindowMaximum() throws {
        var history = PremiumHistory()
        var settings = HistoryContinuityTests.settings()
        settings.premium.rules[0].contextWindow = .seconds(3600)
        history.configure(settings)
        let start = HistoryContinuityTests.start
        let key = "premium/global/BTC"
        // Newer slots first (what closed since a reload) ...
        history.warm((0..<10).map { HistorySample(rule: "global", asset: "BTC", at: start - Double($0) * 60, minPct: 0.1, maxPct: 0.1 + Double($0) * 0.001, lastPct: 0.1) })
        // ... then the store's older ones, one of them the highest.
        var stored = PremiumHistory()
        stored.configure(settings)
        stored.warm((10..<20).map { HistorySample(rule: "global", asset: "BTC", at: start - Double($0) * 60, minPct: 0.1, maxPct: $0 == 15 ? 0.7 : 0.05, lastPct: 0.1) })
        var merged = stored
        merged.mergeRings(from: history)  // the same operation either way round
        history.mergeRings(from: stored)
        for h in [history, merged] {
            var h = h
            let found = h.context(key, rule: "global", pct: 0.2, now: start + 60)
            let context = try #require(found)
            #expect(context.samples == 20)
            #expect(context.maxPct == 0.7)
            #expect(context.maxAt == start - 15 * 60)
        }
        // Merging the same samples again changes nothing.
        history.mergeRings(from: stored)
        #expect(history.context(key, rule: "global", pct: 0.2, now: start + 60)?.samples == 20)
    }
}
