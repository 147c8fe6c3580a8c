import Foundation
import MarketAlertCore
import MarketAlertTestSupport
import Testing

@testable import MarketAlertIO

/// What `EngineCore.decideQuotes` tells the loop after a stream quote decided on arrival: `.perform` when it
/// decided something to carry out (once, while the queue was empty), `.reschedule` when the loop's timer must
/// wake earlier than it is armed (the status refresh, a `for` that started), and nothing otherwise: the
/// common case, which must cost the loop nothing.
@Suite struct EngineCoreSignalTests {
    let start = Date(timeIntervalSince1970: 1_763_900_000)

    private func quote(_ exchange: ExchangeID, _ price: String, at: Date, transport: QuoteTransport = .stream) -> Quote {
        Quote(exchange: exchange, market: "BTCUSDT", base: "BTC", quote: "USDT", last: Price(price), receivedAt: at, transport: transport)
    }

    /// An engine with both exchanges answered (a settled view), the status line just refreshed and the loop's
    /// timer armed as the loop would arm it.
    private func settledCore(forDuration: String) async throws -> (EngineCore, ManualClock) {
        let clock = ManualClock(now: start)
        let engine = AlertEngine(settings: try twoExchangeSettings(forDuration: forDuration), now: start) { "event" }
        let core = EngineCore(engine: engine, clock: clock)
        core.decide { $0.start(now: start) }
        core.decide { engine in
            engine.handle(.quotes(.binance, [quote(.binance, "100000", at: start, transport: .rest)], .snapshot), now: start)
                + engine.handle(.quotes(.bybit, [quote(.bybit, "100000", at: start, transport: .rest)], .snapshot), now: start)
        }
        _ = core.takeDecided()
        #expect(core.statusLineIfDue(now: start) != nil)
        _ = core.rearm(now: start, extra: nil)
        return (core, clock)
    }

    private func publications(_ decided: [EngineCore.Decided]) -> [Publication] {
        decided.flatMap { decided -> [Publication] in
            guard case .actions(let actions) = decided else { return [] }
            return actions.compactMap { if case .publish(let publication) = $0 { publication } else { nil } }
        }
    }

    @Test func aQuoteThatChangesNothingTellsTheLoopOnlyThatTheStatusIsDueThenNothing() async throws {
        let (core, _) = try await settledCore(forDuration: "0s")
        let armed = core.armedWake
        // The first change after a refresh: the status line is due a second later, earlier than the timer.
        #expect(armed.map { $0 > start.addingTimeInterval(1) } ?? true)
        #expect(core.decideQuotes([quote(.bybit, "100020", at: start)], from: .bybit) == [.reschedule])
        #expect(core.rearm(now: start, extra: nil) == (true, start.addingTimeInterval(1)))
        // Below every level, status already due, nothing pending: the loop hears nothing.
        #expect(core.decideQuotes([quote(.bybit, "100030", at: start)], from: .bybit) == [])
        #expect(core.decideQuotes([quote(.bybit, "100010", at: start)], from: .bybit) == [])
        #expect(core.takeDecided().isEmpty)
        // Every quote is counted for the observers all the same.
        #expect(core.takeDecidedCounts().counts.map(\.quotes) == [3])
    }

    @Test func aForStartedByAQuoteReschedulesAndItsFiringAsksToPerformOnce() async throws {
        let (core, clock) = try await settledCore(forDuration: "500ms")
        #expect(core.decideQuotes([quote(.bybit, "100020", at: start)], from: .bybit) == [.reschedule])
        #expect(core.rearm(now: start, extra: nil) == (true, start.addingTimeInterval(1)))
        // 0.12% starts a 500 ms `for`: the pending state is committed (a publication without an event), and
        // its deadline is before the armed status wake, so the timer must move earlier too.
        #expect(core.decideQuotes([quote(.bybit, "100120", at: start)], from: .bybit) == [.perform, .reschedule])
        #expect(publications(core.takeDecided()).map { $0.events.count } == [0])
        #expect(core.rearm(now: start, extra: nil) == (true, start.addingTimeInterval(0.5)))
        // The same deadline again: the armed timer covers it, and nothing new is decided.
        #expect(core.decideQuotes([quote(.bybit, "100121", at: start)], from: .bybit) == [])

        // After the `for`, the next quote fires: one `.perform`; a second decision queued behind the first
        // does not ask again (the loop performs the whole queue), and both are there, in order.
        await clock.advance(by: .milliseconds(600))
        let now = clock.now()
        #expect(core.decideQuotes([quote(.bybit, "100122", at: now)], from: .bybit).contains(.perform))
        #expect(!core.decideQuotes([quote(.bybit, "100000", at: now)], from: .bybit).contains(.perform))
        let events = publications(core.takeDecided()).flatMap(\.events)
        #expect(events.map(\.status) == ["firing", "resolved"])
        #expect(events.first?.at == start.addingTimeInterval(0.6))
    }
}
