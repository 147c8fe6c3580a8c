import Foundation
import Logging
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// Stream quotes are decided where they arrive (`EngineInbox.post` → `EngineCore`), not queued for the loop:
/// the engine sees them before `post` returns, the loop hears of them only when they decided something, and
/// every decision is still published once, in the engine's order, and under HA only by a leader.
@Suite(.serialized) struct EngineFastPathTests {
    let start = Date(timeIntervalSince1970: 1_763_900_000)

    private func streamQuote(_ exchange: ExchangeID, _ price: String, at: Date) -> Quote {
        Quote(
            exchange: exchange, market: "BTCUSDT", base: "BTC", quote: "USDT", last: Price(price), receivedAt: at, transport: .stream)
    }

    @Test func aStreamCrossingIsDecidedOnArrivalAndPublishedOnce() async throws {
        let harness = try await DataPathServiceTests.Harness(settings: try twoExchangeSettings(), store: try SQLiteStore(inMemory: ()), start: start)
        try await harness.settle()
        let runtime = harness.world.runtime
        let sentBefore = runtime.inbox.sent

        // 0.12%: a warning. Decided inside `post`; the loop is told once, to publish it.
        runtime.inbox.post([streamQuote(.bybit, "100120", at: harness.clock.now())], from: .bybit)
        #expect(runtime.inbox.sent == sentBefore + 1)
        let firing = await runtime.loop.snapshot { $0.firingAlerts(now: Date(timeIntervalSince1970: 1_763_900_000)).map(\.key) }
        #expect(firing == ["premium/global/BTC"])

        // A quote that changes nothing worth telling is decided without the loop hearing of it.
        runtime.inbox.post([streamQuote(.bybit, "100125", at: harness.clock.now())], from: .bybit)
        #expect(runtime.inbox.sent == sentBefore + 1)
        let pct = await runtime.loop.snapshot { $0.premiumStatuses().first?.observation?.pct }
        #expect(pct.map { abs($0 - 0.125) < 1e-9 } == true)

        try await harness.settle()
        await harness.stop()
        let events = harness.sink.events
        #expect(events.map(\.status) == ["firing"])
        #expect(events.first?.severity == .warning)
        #expect(events.first?.premium?.high.exchange == "bybit")
        #expect(events.first?.premium?.high.transport == "stream")
    }

    /// A quote decided outside the loop that starts a `for` moves the loop's timer earlier: the notice goes out
    /// the moment the `for` has elapsed (2.5 s: between the loop's whole-second status and watchdog wakes).
    @Test func aForStartedByAStreamQuoteReArmsTheLoopsTimer() async throws {
        let harness = try await DataPathServiceTests.Harness(
            settings: try twoExchangeSettings(forDuration: "2500ms"), store: try SQLiteStore(inMemory: ()), start: start)
        try await harness.settle()
        let runtime = harness.world.runtime
        let crossing = harness.clock.now()
        runtime.inbox.post([streamQuote(.bybit, "100120", at: crossing)], from: .bybit)
        harness.bybit.set("BTC", "100120")  // REST agrees, so the condition holds throughout
        try await harness.settle()
        #expect(harness.sink.events.isEmpty)
        try await harness.advance(3)
        await harness.stop()
        #expect(harness.sink.events.map(\.status) == ["firing"])
        #expect(harness.sink.events.first?.at == crossing.addingTimeInterval(2.5))
    }

    @Test func decisionsOnArrivalAndTheLoopsOwnArePublishedInTheOrderTheyWereTaken() async throws {
        let harness = try await DataPathServiceTests.Harness(settings: try twoExchangeSettings(), store: try SQLiteStore(inMemory: ()), start: start)
        try await harness.settle()
        let runtime = harness.world.runtime
        // A stream quote crosses (decided at once); a REST answer then brings the price back, queued for the
        // loop behind the stream's notice. Nothing runs in between: the loop must publish in that order.
        runtime.inbox.post([streamQuote(.bybit, "100120", at: harness.clock.now())], from: .bybit)
        let rest = Quote(
            exchange: .bybit, market: "BTCUSDT", base: "BTC", quote: "USDT", last: Price("100000"), receivedAt: harness.clock.now())
        runtime.inbox.send(.quotes(.bybit, [rest], .snapshot))
        try await harness.settle()
        await harness.stop()
        #expect(harness.sink.events.map(\.status) == ["firing", "resolved"])
        #expect(harness.sink.events.map { $0.premium?.high.transport } == ["stream", "rest"])
    }
}
