import Foundation
import MarketAlertCore
import MarketAlertTestSupport
import Testing

/// A `basis: depth` notification is a valid v3 event (`premium.executable` with both legs and
/// `max_notional`), checked by Python's jsonschema against the contract's schema.
@Suite struct DepthEventSchemaTests {
    let t0 = Date(timeIntervalSince1970: 1_773_108_000)

    func quote(_ exchange: ExchangeID, market: String, currency: String, bids: [(Double, Double)], asks: [(Double, Double)]) -> Quote {
        var book = OrderBook(levels: 20)
        book.beginSnapshot()
        for (price, size) in bids { book.set(bid: true, price: price, size: size) }
        for (price, size) in asks { book.set(bid: false, price: price, size: size) }
        book.commit(at: t0, snapshot: true)
        var quote = Quote(
            exchange: exchange, market: market, base: "BTC", quote: currency, last: nil,
            bid: book.bids.best.flatMap { Price($0.price) }, ask: book.asks.best.flatMap { Price($0.price) }, receivedAt: t0,
            transport: .stream)
        quote.depth = book
        return quote
    }

    @Test func aDepthNotificationValidatesAgainstTheV3Schema() async throws {
        var rule = PremiumRule(
            name: "executable", assets: ["BTC"], exchanges: [.binance, .upbit], quotes: ["USDT", "KRW"], basis: .depth,
            levels: [AlertLevel(pct: 0.3, severity: .warning)], clearPct: 0.2)
        rule.takerFeePct = [.binance: 0.1, .upbit: 0.05]
        var book = QuoteBook()
        book.update(.binance, with: [quote(.binance, market: "BTCUSDT", currency: "USDT", bids: [(59_990, 1)], asks: [(60_000, 0.1), (60_010, 0.5)])])
        book.update(.upbit, with: [quote(.upbit, market: "KRW-BTC", currency: "KRW", bids: [(84_000_000, 0.3), (83_900_000, 1)], asks: [(84_100_000, 1)])])
        let rate = FXRate(base: "USD", quote: "KRW", rate: try #require(Price("1380")), provider: "dunamu", at: t0)
        let converter = CurrencyConverter(reference: "USD", stablecoinsAs: ["USDT": "USD"], usdRates: ["KRW": rate])
        let observation = try #require(PremiumCalculator.observe(
            rule: rule, asset: "BTC", book: book, converter: converter, maxQuoteAge: .seconds(60), now: t0))
        let event = try #require(PremiumEvents.event(
            id: "00000000-0000-4000-8000-000000000001", rule: rule, reference: "USD", observation: observation, action: .fire(level: 0), now: t0))
        let line = try event.jsonLine()
        #expect(line.contains("\"basis\":\"depth\""))
        #expect(line.contains("\"max_notional\":"))
        let problems = try await SchemaValidator.validateAlertEvents([line])
        #expect(problems == [], "\(problems) in \(line)")
    }
}
