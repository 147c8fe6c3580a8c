import Foundation
import MarketAlertCore
import Testing

/// `listings:` on the engine: the first list is recorded silently; a new market is `listed` once, a gone one
/// `delisted` once; an empty list is a source failure; a big shrink waits for a second poll; and the stored
/// book carries what is known across a restart (a market listed while the daemon was down is notified once).
@Suite struct ListingMachineTests {
    typealias Kit = EngineTestKit
    let t0 = EngineTestKit.start

    var settings: Settings {
        var settings = Settings()
        settings.exchanges[.upbit] = Kit.exchange(.upbit)
        settings.listings = ListingSettings(exchanges: [.upbit], quotes: ["KRW"])
        return settings
    }

    func markets(_ assets: [String], quote: String = "KRW") -> [ListedMarket] {
        assets.map { ListedMarket(market: "\(quote)-\($0)", asset: $0, quote: quote) }
    }

    let base = ["BTC", "ETH", "XRP", "SOL", "DOGE", "ADA", "TRX", "LINK", "DOT", "AVAX", "SUI", "SEI"]

    func publish(_ actions: [EngineAction]) -> Publication {
        var all = Publication()
        for action in actions { if case .publish(let publication) = action { all.append(publication) } }
        return all
    }

    func list(_ engine: inout AlertEngine, _ list: [ListedMarket], after seconds: Double) -> Publication {
        let now = t0.addingTimeInterval(seconds)
        return publish(engine.handle(.marketList(.upbit, list), now: now))
    }

    @Test func theFirstListIsRecordedSilentlyThenChangesAreNotifiedOnce() throws {
        var engine = Kit.engine(settings)
        // BTC-quoted markets are not watched (quotes: [KRW]).
        let first = list(&engine, markets(base) + markets(["ETH"], quote: "BTC"), after: 0)
        #expect(first.events.isEmpty)
        #expect(first.states.map(\.key) == ["listings/upbit"])

        let listed = list(&engine, markets(base + ["NEWCOIN"]), after: 60)
        #expect(listed.events.map { "\($0.key) \($0.status)" } == ["listing/upbit/KRW-NEWCOIN listed"])
        let event = try #require(listed.events.first)
        #expect(event.kind == .listing && event.listing?.asset == "NEWCOIN" && event.listing?.quote == "KRW")
        #expect(event.listing?.firstSeen == t0.addingTimeInterval(60))
        #expect(list(&engine, markets(base + ["NEWCOIN"]), after: 120).events.isEmpty)

        let delisted = list(&engine, markets(base), after: 180)
        #expect(delisted.events.map { "\($0.key) \($0.status)" } == ["listing/upbit/KRW-NEWCOIN delisted"])
        #expect(list(&engine, markets(base), after: 240).events.isEmpty)
        #expect(engine.listingRecords(since: t0).map(\.status) == ["delisted", "listed"])
    }

    @Test func aListWithoutTheWatchedQuotesIsASourceFailureNotADelisting() {
        var engine = Kit.engine(settings)
        _ = list(&engine, markets(base), after: 0)
        let empty = list(&engine, markets(["ETH"], quote: "BTC"), after: 60)
        #expect(empty.events.isEmpty)
        #expect(empty.states.isEmpty)
        #expect(engine.sourceHealth["upbit-listings"]?.consecutiveFailures == 1)
        // The status page and `/api/v1/status` list the listing source with its failure.
        let row = engine.sourceStatuses().first { $0.name == "upbit-listings" }
        #expect(row?.kind == .listing && row?.up == false && row?.consecutiveFailures == 1)
        // The list is back whole: nothing to notify, the source is healthy again.
        #expect(list(&engine, markets(base), after: 120).events.isEmpty)
        #expect(engine.sourceHealth["upbit-listings"]?.consecutiveFailures == 0)
        #expect(engine.sourceStatuses().first { $0.name == "upbit-listings" }?.up == true)
    }

    @Test func aBigShrinkWaitsForASecondPollThatAgrees() {
        var engine = Kit.engine(settings)
        _ = list(&engine, markets(base), after: 0)
        let truncated = Array(base.prefix(4))  // 8 of 12 gone at once
        #expect(list(&engine, markets(truncated), after: 60).events.isEmpty)
        // The next poll is whole again: the shrink was a bad answer, nothing is delisted.
        #expect(list(&engine, markets(base), after: 120).events.isEmpty)
        // A real shrink, seen twice: delisted once, on the second poll.
        #expect(list(&engine, markets(truncated), after: 180).events.isEmpty)
        let confirmed = list(&engine, markets(truncated), after: 240)
        #expect(confirmed.events.count == 8 && confirmed.events.allSatisfy { $0.status == "delisted" })
        #expect(list(&engine, markets(truncated), after: 300).events.isEmpty)
    }

    @Test func aListingWhileDownIsNotifiedOnceAfterTheRestart() throws {
        var engine = Kit.engine(settings)
        let first = list(&engine, markets(base), after: 0)
        let stored = try #require(first.states.first)
        // The restart: the store's book is restored; the first poll finds a market listed meanwhile.
        var restored = AlertEngine.Restored()
        restored.listings[stored.key] = try JSONDecoder().decode(ListingBook.self, from: stored.data)
        var restarted = Kit.engine(settings, restored: restored, at: t0.addingTimeInterval(3600))
        let caughtUp = list(&restarted, markets(base + ["LATE"]), after: 3600)
        #expect(caughtUp.events.map { "\($0.key) \($0.status)" } == ["listing/upbit/KRW-LATE listed"])
        // A second restart from what that publication stored: nothing again.
        let again = try #require(caughtUp.states.first)
        var restoredAgain = AlertEngine.Restored()
        restoredAgain.listings[again.key] = try JSONDecoder().decode(ListingBook.self, from: again.data)
        var third = Kit.engine(settings, restored: restoredAgain, at: t0.addingTimeInterval(7200))
        #expect(list(&third, markets(base + ["LATE"]), after: 7200).events.isEmpty)
        #expect(third.listingRecords(since: t0).map(\.market.market) == ["KRW-LATE"])
    }

    /// An HA takeover: the standby's books become what the old leader committed, so a listing the leader
    /// already notified is not notified again, and one it had not seen is notified once.
    @Test func aTakeoverAdoptsTheLeadersBooks() throws {
        var leader = Kit.engine(settings)
        _ = list(&leader, markets(base), after: 0)
        let committed = list(&leader, markets(base + ["NEW"]), after: 60)
        #expect(committed.events.map(\.key) == ["listing/upbit/KRW-NEW"])
        var standby = Kit.engine(settings)
        _ = list(&standby, markets(base), after: 0)  // its own view, from before the listing
        var restored = AlertEngine.Restored()
        let book = try #require(committed.states.last)
        restored.listings[book.key] = try JSONDecoder().decode(ListingBook.self, from: book.data)
        _ = standby.adopt(restored, now: t0.addingTimeInterval(90))
        #expect(list(&standby, markets(base + ["NEW"]), after: 120).events.isEmpty)
        #expect(list(&standby, markets(base + ["NEW", "NEXT"]), after: 180).events.map(\.key) == ["listing/upbit/KRW-NEXT"])
    }

    @Test func aQuoteAddedByAReloadIsRecordedSilently() {
        var engine = Kit.engine(settings)
        _ = list(&engine, markets(base) + markets(["BTC", "ETH"], quote: "USDT"), after: 0)
        var wider = settings
        wider.listings?.quotes = ["KRW", "USDT"]
        _ = engine.handle(.settings(wider), now: t0.addingTimeInterval(30))
        #expect(list(&engine, markets(base) + markets(["BTC", "ETH"], quote: "USDT"), after: 60).events.isEmpty)
        let listed = list(&engine, markets(base) + markets(["BTC", "ETH", "SOL"], quote: "USDT"), after: 120)
        #expect(listed.events.map(\.key) == ["listing/upbit/USDT-SOL"])
    }
}
