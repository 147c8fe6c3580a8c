import Foundation
@testable import MarketAlertCore
import Testing

/// `HistoryMachine` alone, in virtual time, over rings it is handed (as the premium machine's are): its
/// deadline (a slot's end, the digest's due time in the digest's zone), what it publishes and prunes, and what
/// a takeover changes.
@Suite struct HistoryMachineTests {
    static let key = "premium/global/BTC"
    /// 2026-11-22 23:58:00 UTC = 2026-11-23 08:58 in Seoul; the digest is due at 09:00 Seoul = 00:00 UTC.
    static let start = HistoryEngineTests.start
    static let due = start + 120

    func advance(
        _ machine: inout HistoryMachine, _ rings: inout PremiumHistory, settings: Settings, at now: Date
    ) -> Publication {
        var out = EngineOutput()
        let context = MachineContext(settings: settings, now: now, makeID: IDCounter().next)
        machine.advance(rings: &rings, offerings: [:], context: context, into: &out)
        return out.publication
    }

    @Test func theDigestFallsDueAt0900SeoulWithThePeriodsSlotsAndTheSlotEndsComeFirst() throws {
        let settings = HistoryEngineTests.settings(digest: true)
        var rings = PremiumHistory()
        var machine = HistoryMachine(warmup: nil, digestDay: nil, rings: &rings, settings: settings, now: Self.start)
        #expect(machine.deadline(flushAt: rings.flushAt) == Self.due)

        rings.observe(Self.key, pct: 0.07, now: Self.start)
        #expect(machine.deadline(flushAt: rings.flushAt) == Self.start + 60, "the slot closes before the digest")
        let first = advance(&machine, &rings, settings: settings, at: Self.start + 60)
        #expect(first.history.map(\.maxPct) == [0.07])
        #expect(first.pruneHistoryBefore == Self.start + 60 - 3 * 86_400)
        #expect(first.events.isEmpty)

        rings.observe(Self.key, pct: 0.02, now: Self.start + 90)
        #expect(advance(&machine, &rings, settings: settings, at: Self.due - 1).isEmpty)
        let sent = advance(&machine, &rings, settings: settings, at: Self.due)
        #expect(sent.history.map(\.minPct) == [0.02])
        #expect(sent.pruneHistoryBefore == nil, "pruned at most hourly")
        let digest = try #require(sent.events.first)
        #expect(sent.events.count == 1)
        #expect(digest.key == "digest/2026-11-23", "the day in Seoul, not the UTC day that just began")
        #expect(digest.digest?.timeZone == "Asia/Seoul")
        let row = try #require(digest.digest?.premium.first)
        #expect(row.maxPct == 0.07 && row.minPct == 0.02)
        #expect(sent.states.map(\.key) == [DigestRecord.key])
        #expect(machine.deadline(flushAt: rings.flushAt) == Self.due + 86_400)
        #expect(advance(&machine, &rings, settings: settings, at: Self.due + 3600).events.isEmpty)
    }

    @Test func aDigestWestOfUTCIsForTheLocalDayBeforeTheUTCOne() {
        var settings = HistoryEngineTests.settings()
        settings.digest = DigestSettings(hour: 23, minute: 30, timeZone: "America/Los_Angeles")
        // 2026-11-23 07:00 UTC = 2026-11-22 23:00 in Los Angeles (PST, UTC-8).
        let now = Date(timeIntervalSince1970: 1_795_417_200)
        var rings = PremiumHistory()
        var machine = HistoryMachine(warmup: nil, digestDay: "2026-11-21", rings: &rings, settings: settings, now: now)
        #expect(machine.deadline(flushAt: nil) == now + 1800)
        let sent = advance(&machine, &rings, settings: settings, at: now + 1800)
        #expect(sent.events.map(\.key) == ["digest/2026-11-22"])
        #expect(machine.digest.sentDay == "2026-11-22")
    }

    @Test func aTakeoverMakesTheDigestDayAndPeriodTheGroupsKeepsTheObservedSlotAndPrunesAnew() throws {
        let settings = HistoryEngineTests.settings(digest: true)
        var rings = PremiumHistory()
        var standby = HistoryMachine(warmup: nil, digestDay: nil, rings: &rings, settings: settings, now: Self.start)
        rings.observe(Self.key, pct: 0.03, now: Self.start)
        #expect(advance(&standby, &rings, settings: settings, at: Self.start + 60).pruneHistoryBefore != nil)
        rings.observe(Self.key, pct: 0.05, now: Self.start + 70)

        // The store: the group sent the 22nd's digest, and the old leader recorded a sample in today's period.
        let takeover = Self.start + 80
        var warm = HistoryWarmup(settings: settings, now: takeover)
        warm.add(HistorySample(rule: "global", asset: "BTC", at: Self.start - 3600, minPct: 0.1, maxPct: 0.2, lastPct: 0.15))
        standby.adopt(warmup: warm, digestDay: "2026-11-22", rings: &rings, settings: settings, now: takeover)
        #expect(standby.digest.sentDay == "2026-11-22")
        #expect(rings.openSamples().map(\.lastPct) == [0.05], "the slot this standby observed stays open")
        #expect(standby.deadline(flushAt: rings.flushAt) == Self.due)

        let sent = advance(&standby, &rings, settings: settings, at: Self.due)
        #expect(sent.history.map(\.lastPct) == [0.05])
        #expect(sent.pruneHistoryBefore == Self.due - 3 * 86_400, "the store's rings have not pruned yet")
        let row = try #require(sent.events.first?.digest?.premium.first)
        #expect(sent.events.map(\.key) == ["digest/2026-11-23"])
        #expect(row.maxPct == 0.2 && row.minPct == 0.05, "the group's period, with the slot observed here")
    }

    @Test func aMissedDigestIsSentLateOnceAndARemovedDigestHasNoDeadline() {
        let settings = HistoryEngineTests.settings(digest: true)
        let restart = Self.due + 7200
        var rings = PremiumHistory()
        var machine = HistoryMachine(warmup: nil, digestDay: "2026-11-22", rings: &rings, settings: settings, now: restart)
        let context = MachineContext(settings: settings, now: restart, makeID: IDCounter().next)
        var out = EngineOutput()
        machine.sendLateDigest(offerings: [:], context: context, into: &out)
        machine.sendLateDigest(offerings: [:], context: context, into: &out)
        #expect(out.publication.events.map(\.key) == ["digest/2026-11-23"])
        #expect(out.publication.events.first?.summary.contains("sent late") == true)

        var without = settings
        without.digest = nil
        var reload = EngineOutput()
        machine.reload(old: settings, new: without, rings: &rings, now: restart, into: &reload)
        #expect(machine.deadline(flushAt: rings.flushAt) == nil)
        #expect(machine.digest.sentDay == "2026-11-23", "the day sent stays sent")
    }
}
