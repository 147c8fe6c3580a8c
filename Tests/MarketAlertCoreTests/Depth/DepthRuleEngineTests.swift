import Foundation
import MarketAlertCore
import Testing

/// A `basis: depth` rule through the engine: books ride on stream quotes; the premium is the executable one,
/// net of fees; a thin or unsynced book gives no alert where the last price would.
@Suite struct DepthRuleEngineTests {
    typealias Kit = EngineTestKit
    let t0 = EngineTestKit.start

    func depthRule(notional: Double = 10_000, net: Bool = true, exchanges: [ExchangeID] = [.binance, .bybit]) -> PremiumRule {
        var rule = Kit.rule("executable", exchanges: exchanges)
        rule.basis = .depth
        rule.notional = notional
        rule.netOfFees = net
        rule.levels = [AlertLevel(pct: 0.3, severity: .warning)]
        rule.clearPct = 0.2
        rule.takerFeePct = [.binance: 0.1, .bybit: 0.1]
        return rule
    }

    /// A quote carrying a book: `asks`/`bids` as (price, size), synced unless said otherwise.
    func bookQuote(_ exchange: ExchangeID, bids: [(Double, Double)], asks: [(Double, Double)], synced: Bool = true, last: String? = nil, at: Date) -> Quote {
        var book = OrderBook(levels: 20)
        book.beginSnapshot()
        for (price, size) in bids { book.set(bid: true, price: price, size: size) }
        for (price, size) in asks { book.set(bid: false, price: price, size: size) }
        book.commit(at: at, snapshot: true)
        if !synced { book.invalidate() }
        var quote = Quote(
            exchange: exchange, market: "BTCUSDT", base: "BTC", quote: "USDT", last: last.flatMap { Price($0) },
            bid: book.bids.best.flatMap { Price($0.price) }, ask: book.asks.best.flatMap { Price($0.price) }, receivedAt: at,
            transport: .stream)
        quote.depth = book
        return quote
    }

    func run(_ rule: PremiumRule, _ quotes: [Quote]) -> [AlertEvent] {
        var engine = Kit.engine(Kit.settings(rules: [rule]))
        var events: [AlertEvent] = []
        for quote in quotes {
            events += Kit.events(engine.handle(.quotes(quote.exchange, [quote], .snapshot), now: t0))
        }
        return events
    }

    @Test func aDeepEnoughGapFiresWithTheTradeBehindIt() throws {
        // Buy 10,000 USDT on binance at 100 (200 units visible), sell on bybit at 101: +1% gross, ~0.8% net.
        let events = run(depthRule(), [
            bookQuote(.binance, bids: [(99.9, 200)], asks: [(100, 200)], at: t0),
            bookQuote(.bybit, bids: [(101, 150), (100.5, 100)], asks: [(101.1, 10)], at: t0),
        ])
        let event = try #require(events.first { $0.kind == .premium })
        #expect(event.status == AlertEvent.Status.firing)
        let premium = try #require(event.premium)
        #expect(premium.basis == .depth)
        let executable = try #require(premium.executable)
        #expect(executable.buy.exchange == "binance" && executable.sell.exchange == "bybit")
        #expect(executable.quantity == 100)
        #expect(abs(executable.grossPct - 1) < 1e-9)
        let net = (10_100 * 0.999 / (10_000 * 1.001) - 1) * 100
        #expect(abs(executable.netPct - net) < 1e-6)
        #expect(abs(premium.pct - net) < 1e-6)
        #expect(premium.high.side == "bid" && premium.low.side == "ask")
        // 150 units sell at 101, then 100.5: the trade still pays 0.3% up to some size beyond 10,000.
        let most = try #require(executable.maxNotional)
        #expect(most > 10_000)
        #expect(event.summary.contains("buy 10,000"))
        #expect(event.summary.contains("net of fees (0.1% + 0.1%)"))
        let json = try event.jsonLine()
        #expect(json.contains("\"executable\":{"))
        #expect(json.contains("\"vwap_ref\":"))
    }

    @Test func aThinBookGivesNoAlertWhereTheLastPriceWould() {
        // The best prices are 1% apart, but binance shows only 10 units (1,000 USDT) of asks.
        let quotes = [
            bookQuote(.binance, bids: [(99.9, 200)], asks: [(100, 10)], last: "100", at: t0),
            bookQuote(.bybit, bids: [(101, 150)], asks: [(101.1, 10)], last: "101", at: t0),
        ]
        #expect(run(depthRule(), quotes).filter { $0.kind == .premium }.isEmpty)
        var lastRule = depthRule()
        lastRule.basis = .last
        lastRule.levels = [AlertLevel(pct: 0.3, severity: .warning)]
        #expect(!run(lastRule, quotes).filter { $0.kind == .premium }.isEmpty)
    }

    @Test func feesCanEatAGrossPremium() {
        // 0.25% gross, two 0.1% taker fees: net ≈ 0.05%, under the 0.3% level; gross alone would not fire either
        // at 0.3, so use a 0.2% level to see the difference.
        var rule = depthRule()
        rule.levels = [AlertLevel(pct: 0.2, severity: .warning)]
        rule.clearPct = 0.1
        let quotes = [
            bookQuote(.binance, bids: [(99.9, 200)], asks: [(100, 200)], at: t0),
            bookQuote(.bybit, bids: [(100.25, 200)], asks: [(100.3, 10)], at: t0),
        ]
        #expect(run(rule, quotes).filter { $0.kind == .premium }.isEmpty)
        rule.netOfFees = false
        #expect(run(rule, quotes).filter { $0.kind == .premium }.count == 1)
    }

    @Test func aBookOutOfSyncTakesNoPart() {
        let quotes = [
            bookQuote(.binance, bids: [(99.9, 200)], asks: [(100, 200)], synced: false, at: t0),
            bookQuote(.bybit, bids: [(101, 150)], asks: [(101.1, 10)], at: t0),
        ]
        #expect(run(depthRule(), quotes).filter { $0.kind == .premium }.isEmpty)
    }

    @Test func theKeptObservationHoldsNoOrderBook() throws {
        // The engine keeps each rule × asset's last observation. Were its two quotes to carry their books, the
        // quote book's next update of either market would find the book shared and copy it (five allocations
        // a depth message, `marketalertd-bench --depth`). The trade itself is in `executable`.
        var engine = Kit.engine(Kit.settings(rules: [depthRule()]))
        for quote in [
            bookQuote(.binance, bids: [(99.9, 200)], asks: [(100, 200)], at: t0),
            bookQuote(.bybit, bids: [(101, 150), (100.5, 100)], asks: [(101.1, 10)], at: t0),
        ] {
            _ = engine.handle(.quotes(quote.exchange, [quote], .snapshot), now: t0)
        }
        let observation = try #require(engine.premiumTable().first { $0.asset == "BTC" }?.observation)
        #expect(observation.executable?.buy.exchange == "binance")
        #expect(observation.high.quote.depth == nil && observation.low.quote.depth == nil)
        #expect(observation.high.quote.exchange == .bybit && observation.low.quote.exchange == .binance)
        // The books are still the quote book's, for the next evaluation and `/api/v1/book`.
        #expect(engine.book.quote(.binance, MarketPair(base: "BTC", quote: "USDT"))?.depth?.isSynced == true)
    }
}
