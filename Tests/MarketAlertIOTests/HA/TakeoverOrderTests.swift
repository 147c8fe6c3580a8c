import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// Under HA, stream quotes are decided where they arrive, outside the engine loop. What the engine decided
/// as a standby is never published, even when the loop performs it after the takeover came in: the takeover
/// takes its place in the engine's decision order, not in the loop's input order.
@Suite(.serialized, .enabled(if: PostgresTestServer.isAvailable, "needs PostgreSQL (apt-get install postgresql; scripts/test does)"))
struct TakeoverOrderTests {
    @Test func aStandbysDecisionQueuedBeforeTheTakeoverIsNeverPublished() async throws {
        let (_, url) = try await SharedPostgres.database()
        let store = try await PostgresStoreTests.open(url)
        defer { Task { await store.shutdown() } }
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_763_950_000))
        let binance = ScriptedQuoteSource(.binance, clock: clock)
        let bybit = ScriptedQuoteSource(.bybit, clock: clock)
        binance.set("BTC", "100000")
        bybit.set("BTC", "100010")
        let leadership = LeadershipEvents()
        let world = try await RuntimeHarness.start(
            settings: try twoExchangeSettings(), store: store, factory: scriptedFactory([binance, bybit]), clock: clock, leadership: leadership)
        let epoch = try await PostgresStoreTests.lead(store)
        let runtime = world.runtime

        // The takeover is queued for the loop; before the loop reaches it, a stream quote crosses 0.1% and is
        // decided at once by the standby engine. Then the loop adopts the (empty) stored states and evaluates
        // everything again as the leader: the crossing is notified once, by the leader.
        runtime.inbox.takeover(AlertEngine.Restored(), epoch: epoch)
        runtime.inbox.post([
            Quote(exchange: .bybit, market: "BTCUSDT", base: "BTC", quote: "USDT", last: Price("100120"), receivedAt: clock.now(),
                  transport: .stream)
        ], from: .bybit)
        try await world.settle()
        #expect(await runtime.publisher.leadingEpoch == epoch)
        await world.stop()
        let events = world.sink.events
        #expect(events.map(\.status) == ["firing"], "one notice, from the leader: \(events.map(\.status))")
        #expect(events.first?.severity == .warning)
        #expect(try await store.pendingEvents().isEmpty, "committed under the fence and cleared")
        leadership.finish()
        var reported: [LeadershipEvent] = []
        for await event in leadership.stream { reported.append(event) }
        #expect(reported.isEmpty, "no commit refused: \(reported)")
    }
}
