import Foundation
import Logging
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Synchronization
import Testing

/// The known market lists and the tether alert's state go through the one store protocol: what the engine
/// publishes on SQLite and on PostgreSQL is what `StateRestore` gives the next engine, which then notifies
/// nothing twice.
@Suite struct ListingBookStoreTests {
    let t0 = Date(timeIntervalSince1970: 1_773_108_000)

    var settings: Settings {
        var settings = Settings()
        settings.exchanges[.upbit] = ExchangeSettings(id: .upbit, baseURL: URL(fileURLWithPath: "/"))
        settings.listings = ListingSettings(exchanges: [.upbit], quotes: ["KRW"])
        return settings
    }

    func markets(_ assets: [String]) -> [ListedMarket] { assets.map { ListedMarket(market: "KRW-\($0)", asset: $0, quote: "KRW") } }

    func publication(_ actions: [EngineAction]) -> Publication {
        var all = Publication()
        for action in actions { if case .publish(let publication) = action { all.append(publication) } }
        return all
    }

    /// First run and one listing committed to `store`; a new engine restored from it notifies only what changed.
    func roundTrip(_ store: any AlertStore) async throws {
        let counter = Counter()
        var engine = AlertEngine(settings: settings, now: t0) { counter.next() }
        try await store.commit(publication(engine.handle(.marketList(.upbit, markets(["BTC", "ETH"])), now: t0)), at: t0)
        let listed = publication(engine.handle(.marketList(.upbit, markets(["BTC", "ETH", "NEW"])), now: t0.addingTimeInterval(60)))
        #expect(listed.events.map(\.key) == ["listing/upbit/KRW-NEW"])
        try await store.commit(listed, at: t0.addingTimeInterval(60))

        let restored = try await StateRestore.alertStates(from: store, logger: Logger(label: "test"))
        #expect(restored.listings.keys.sorted() == ["listings/upbit"])
        var restarted = AlertEngine(settings: settings, restored: restored, now: t0.addingTimeInterval(3600)) { counter.next() }
        let again = publication(restarted.handle(.marketList(.upbit, markets(["BTC", "ETH", "NEW", "LATE"])), now: t0.addingTimeInterval(3600)))
        #expect(again.events.map(\.key) == ["listing/upbit/KRW-LATE"])
        #expect(restarted.listingRecords(since: t0).map(\.market.market) == ["KRW-LATE", "KRW-NEW"])
    }

    @Test func sqlite() async throws {
        try await roundTrip(try SQLiteStore(inMemory: ()))
    }

    @Test(.enabled(if: PostgresTestServer.isAvailable, "needs PostgreSQL (apt-get install postgresql; scripts/test does)"))
    func postgres() async throws {
        let (_, url) = try await SharedPostgres.database()
        let store = try await PostgresStoreTests.open(url)
        defer { Task { await store.shutdown() } }
        _ = try await PostgresStoreTests.lead(store)
        try await roundTrip(store)
    }

    final class Counter: Sendable {
        private let value = Mutex(0)
        func next() -> String { "e-\(value.withLock { $0 += 1; return $0 })" }
    }
}
