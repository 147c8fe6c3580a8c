import Foundation
import MarketAlertCore
import Testing

/// The last good IPO list survives a restart: each offering's stored row keeps the offering as the source
/// last listed it, so the windows go on at their day boundaries (and show) while the source is silent.
/// `EngineTestKit.start` is Tuesday 2026-03-10 10:00 in Taipei; the offering subscribes 03-10 to 03-12.
@Suite struct IPOLastGoodListTests {
    typealias Offer = IPOValueTests

    static let settings = IPOValueEngineTests.settings(minSpread: nil, notify: [.opens, .last_day, .closed])

    /// The rows committed by `actions`, as a restart reads them back.
    static func restored(_ actions: [[EngineAction]]) throws -> AlertEngine.Restored {
        var restored = AlertEngine.Restored()
        for case .publish(let publication) in actions.joined() {
            for record in publication.states where record.kind == IPOAlertState.kind {
                restored.ipo[record.key] = try JSONDecoder().decode(IPOAlertState.self, from: record.data)
            }
            for key in publication.deletedKeys { restored.ipo[key] = nil }
        }
        return restored
    }

    @Test func aRestartWithoutAnAnswerGoesOnToTheLastDayAndShowsTheWindow() throws {
        let now = EngineTestKit.start
        var engine = EngineTestKit.engine(Self.settings, at: now)
        let offering = Offer.offering()
        let first = engine.handle(.ipoOfferings(source: "twse", [offering]), now: now)
        #expect(EngineTestKit.events(first).map(\.status) == ["open"])

        // Restarted an hour later; TWSE does not answer (no `.ipoOfferings` at all).
        let later = now.addingTimeInterval(3600)
        var again = EngineTestKit.engine(Self.settings, restored: try Self.restored([first]), at: later)
        #expect(again.ipoSnapshot(now: later).map(\.code) == ["7795"])
        #expect(again.ipoSnapshot(now: later).first?.state == .open)
        // 2026-03-12 00:00 in Taipei, the last day's start, is still a deadline of the engine.
        let lastDay = try #require(ISO8601DateFormatter().date(from: "2026-03-11T16:00:00Z"))
        #expect(again.nextDeadline(after: later) == lastDay)
        #expect(EngineTestKit.events(again.advance(now: lastDay)).map(\.status) == ["last_day"])
        // The source's next answer replaces the list; nothing is announced twice.
        #expect(EngineTestKit.events(again.handle(.ipoOfferings(source: "twse", [offering]), now: lastDay)).isEmpty)
    }

    @Test func anOfferingThatLeftTheListIsNotBroughtBackByARestart() throws {
        let now = EngineTestKit.start
        var engine = EngineTestKit.engine(Self.settings, at: now)
        let kept = Offer.offering()
        let gone = Offer.offering(code: "5534", name: "長虹", market: "上市增資", offer: "60")
        let both = engine.handle(.ipoOfferings(source: "twse", [kept, gone]), now: now)
        let one = engine.handle(.ipoOfferings(source: "twse", [kept]), now: now.addingTimeInterval(60))
        let restored = try Self.restored([both, one])
        // Its state is remembered (so it is not announced again if it comes back), its offering is not.
        #expect(restored.ipo[gone.key] != nil)
        #expect(restored.ipo[gone.key]?.offering == nil)
        #expect(restored.ipo[kept.key]?.offering == kept)
        let again = EngineTestKit.engine(Self.settings, restored: restored, at: now.addingTimeInterval(120))
        #expect(again.ipoSnapshot(now: now.addingTimeInterval(120)).map(\.code) == ["7795"])
    }

    @Test func aRowWrittenBeforeTheOfferingWasKeptStillLoadsAndListsNothing() throws {
        let now = EngineTestKit.start
        var engine = EngineTestKit.engine(Self.settings, at: now)
        let actions = engine.handle(.ipoOfferings(source: "twse", [Offer.offering()]), now: now)
        var restored = try Self.restored([actions])
        // The same row as an earlier version wrote it: no `offering` member.
        let key = Offer.offering().key
        var old = try #require(restored.ipo[key])
        old.offering = nil
        let data = try JSONEncoder().encode(old)
        #expect(!String(decoding: data, as: UTF8.self).contains("\"offering\""))
        restored.ipo[key] = try JSONDecoder().decode(IPOAlertState.self, from: data)
        var again = EngineTestKit.engine(Self.settings, restored: restored, at: now)
        #expect(again.ipoSnapshot(now: now).isEmpty)
        #expect(again.nextDeadline(after: now).map { $0 > now } ?? true)
        // Its state still keeps the window from being announced again once the source answers.
        #expect(EngineTestKit.events(again.handle(.ipoOfferings(source: "twse", [Offer.offering()]), now: now)).isEmpty)
    }

    @Test func theStoredOfferingReadsBackExactly() throws {
        let now = EngineTestKit.start
        var engine = EngineTestKit.engine(Self.settings, at: now)
        let offering = Offer.offering(offer: "58.35", final: "58.35", winRate: "0.284567", qualified: 189_374)
        let actions = engine.handle(.ipoOfferings(source: "twse", [offering]), now: now)
        #expect(try Self.restored([actions]).ipo[offering.key]?.offering == offering)
    }

    @Test func aStoredListOfASourceNoLongerConfiguredIsIgnored() throws {
        let now = EngineTestKit.start
        var engine = EngineTestKit.engine(Self.settings, at: now)
        let actions = engine.handle(.ipoOfferings(source: "twse", [Offer.offering()]), now: now)
        var settings = Self.settings
        settings.ipo.sources[0].name = "tpex"
        let again = EngineTestKit.engine(settings, restored: try Self.restored([actions]), at: now)
        #expect(again.ipoSnapshot(now: now).isEmpty)
    }
}
