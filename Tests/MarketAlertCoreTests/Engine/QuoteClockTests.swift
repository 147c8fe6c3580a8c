import Foundation
import MarketAlertCore
import Testing

/// A quote's own time read in the wrong unit is replaced by its receive time, counted and logged: a quote
/// from the year 58872 is never fresh forever nor published; one from 1970 is not stale at once.
@Suite struct QuoteClockTests {
    typealias Kit = EngineTestKit
    let t0 = EngineTestKit.start

    func quote(_ exchange: ExchangeID, _ price: String, exchangeTime: Date?, at: Date) -> Quote {
        var quote = Kit.quote(exchange, price, at: at)
        quote.exchangeTime = exchangeTime
        return quote
    }

    /// Binance quotes (`exchangeTime`) against a plain Bybit quote; returns the firing event and the logs.
    func fire(binanceTime: Date?) -> (event: AlertEvent?, logs: [String], engine: AlertEngine) {
        var engine = Kit.engine(Kit.settings(rules: [Kit.rule("global", exchanges: [.binance, .bybit])]))
        _ = engine.handle(.quotes(.bybit, [Kit.quote(.bybit, "100000", at: t0)], .snapshot), now: t0)
        let actions = engine.handle(.quotes(.binance, [quote(.binance, "100200", exchangeTime: binanceTime, at: t0)], .update), now: t0)
        let logs = actions.compactMap { action -> String? in if case .log(let line) = action { line.message } else { nil } }
        return (Kit.events(actions).first { $0.key == "premium/global/BTC" }, logs, engine)
    }

    @Test func microsecondsReadAsMillisecondsAreReplacedByTheReceiveTimeCountedAndLogged() throws {
        // 1725927377300123 µs read as milliseconds: the year 58872.
        let (event, logs, engine) = fire(binanceTime: Date(timeIntervalSince1970: 1_725_927_377_300.123))
        let firing = try #require(event)
        #expect(firing.premium?.high.exchange == "binance")
        #expect(firing.premium?.high.at == t0)
        #expect(try firing.jsonLine().contains("58872") == false)
        #expect(engine.quoteClockRejections[.binance] == 1)
        #expect(logs.contains { $0.contains("binance sent a quote time that cannot be right") })
    }

    @Test func aTimeAFewSecondsAheadIsKeptButTenSecondsAheadIsNot() throws {
        let slightly = fire(binanceTime: t0.addingTimeInterval(3))
        #expect(slightly.event?.premium?.high.at == t0.addingTimeInterval(3))
        #expect(slightly.engine.quoteClockRejections[.binance] == nil)
        let ahead = fire(binanceTime: t0.addingTimeInterval(10))
        #expect(ahead.event?.premium?.high.at == t0)
        #expect(ahead.engine.quoteClockRejections[.binance] == 1)
    }

    @Test func aTimeBefore2010IsReplacedSoTheQuoteIsNotStaleAtOnce() throws {
        // Seconds read as milliseconds: 1970-01-21.
        let (event, _, engine) = fire(binanceTime: Date(timeIntervalSince1970: 1_773_108))
        #expect(event?.premium?.high.at == t0)
        #expect(engine.quoteClockRejections[.binance] == 1)
        // A genuinely old quote (after 2010) stays as it is, and is stale.
        let old = fire(binanceTime: t0.addingTimeInterval(-3600))
        #expect(old.event == nil)
        #expect(old.engine.quoteClockRejections[.binance] == nil)
    }

    @Test func aRESTSnapshotIsGuardedToo() {
        var engine = Kit.engine(Kit.settings(rules: [Kit.rule("global", exchanges: [.binance, .bybit])]))
        let future = t0.addingTimeInterval(86_400 * 365)
        let batch = [quote(.bybit, "100000", exchangeTime: future, at: t0)]
        _ = engine.handle(.quotes(.bybit, batch, .snapshot), now: t0)
        #expect(engine.quoteClockRejections[.bybit] == 1)
        // Stale after max_quote_age like any quote received at t0.
        let later = t0.addingTimeInterval(31)
        let events = Kit.events(engine.handle(.quotes(.binance, [Kit.quote(.binance, "100200", at: later)], .snapshot), now: later))
        #expect(events.isEmpty)
    }
}
