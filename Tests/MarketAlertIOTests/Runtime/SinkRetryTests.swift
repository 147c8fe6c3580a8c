import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// A sink that refuses a notification (a closed stdout, the journal restarting) is tried again on the engine
/// loop's timer, 5 s after the failure and then backing off, not only when the market next moves; the
/// notification stays pending in the store until that sink took it.
@Suite(.serialized) struct SinkRetryTests {
    let start = Date(timeIntervalSince1970: 1_763_800_000)

    @Test func aRefusedNotificationIsRetriedOnATimerWithoutAnotherPublication() async throws {
        let store = try SQLiteStore(inMemory: ())
        let harness = try await DataPathServiceTests.Harness(settings: try twoExchangeSettings(), store: store, start: start)
        try await harness.settle()
        harness.sink.setFailing(true)
        harness.bybit.set("BTC", "100120")  // 0.12%: a warning
        var due: Date?
        for _ in 0..<10 where due == nil {
            try await harness.advance(1)
            due = await harness.world.runtime.publisher.nextSinkRetry
        }
        let firstRetry = try #require(due, "the sink never refused the warning")
        #expect(harness.sink.events.isEmpty)
        #expect(try await store.pendingEvents().count == 1)
        #expect(firstRetry.timeIntervalSince(harness.clock.now()) <= 5)

        // Still refusing at the first retry: the next one is 10 s later.
        try await harness.world.advance(to: firstRetry)
        let secondRetry = try #require(await harness.world.runtime.publisher.nextSinkRetry)
        #expect(secondRetry.timeIntervalSince(firstRetry) == 10)
        #expect(harness.sink.events.isEmpty)

        // The sink is back; nothing moves in the market, so no publication happens: the timer delivers.
        harness.sink.setFailing(false)
        try await harness.world.advance(to: secondRetry.addingTimeInterval(-1))
        #expect(harness.sink.events.isEmpty)
        try await harness.world.advance(to: secondRetry)
        await harness.stop()
        #expect(harness.sink.events.map(\.status) == ["firing"])
        #expect(harness.sink.events.first?.severity == .warning)
        #expect(try await store.pendingEvents().isEmpty)
        #expect(await harness.world.runtime.publisher.nextSinkRetry == nil)
    }
}
