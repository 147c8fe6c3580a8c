import Foundation
import MarketAlertCore
import Testing

@Suite struct PremiumCalculatorTests {
    let now = Date(timeIntervalSince1970: 1_710_038_820)

    func quote(_ exchange: ExchangeID, _ base: String, _ quote: String, last: String?, bid: String? = nil, ask: String? = nil, age: TimeInterval = 1) -> Quote {
        Quote(
            exchange: exchange, market: "\(base)\(quote)", base: base, quote: quote, last: last.flatMap { Price($0) },
            bid: bid.flatMap { Price($0) }, ask: ask.flatMap { Price($0) }, exchangeTime: now.addingTimeInterval(-age), receivedAt: now)
    }

    func book(_ quotes: [Quote]) -> QuoteBook {
        var book = QuoteBook()
        for exchange in Set(quotes.map(\.exchange)) { book.replace(exchange, with: quotes.filter { $0.exchange == exchange }) }
        return book
    }

    func rule(_ exchanges: [ExchangeID], quotes: [String] = ["USDT"], basis: PremiumBasis = .last) -> PremiumRule {
        PremiumRule(name: "global", assets: ["BTC"], exchanges: exchanges, quotes: quotes, basis: basis, levels: PremiumRule.defaultLevels, clearPct: 0.04)
    }

    let usd = CurrencyConverter(reference: "USD", stablecoinsAs: ["USDT": "USD", "USDC": "USD"], usdRates: [:])

    @Test func lastBasisIsSpreadOverTheCheapest() throws {
        let book = book([quote(.binance, "BTC", "USDT", last: "100000"), quote(.bybit, "BTC", "USDT", last: "100100"), quote(.okx, "BTC", "USDT", last: "100050")])
        let observation = try #require(PremiumCalculator.observe(rule: rule([.binance, .bybit, .okx]), asset: "BTC", book: book, converter: usd, maxQuoteAge: .seconds(30), now: now))
        #expect(abs(observation.pct - 0.1) < 1e-9)
        #expect(observation.high.quote.exchange == .bybit)
        #expect(observation.low.quote.exchange == .binance)
        #expect(observation.rates.isEmpty)
    }

    @Test func equalPricesGiveAZeroPremiumNotNone() throws {
        let book = book([quote(.binance, "BTC", "USDT", last: "100000"), quote(.bybit, "BTC", "USDT", last: "100000.00")])
        let observation = try #require(PremiumCalculator.observe(rule: rule([.binance, .bybit]), asset: "BTC", book: book, converter: usd, maxQuoteAge: .seconds(30), now: now))
        #expect(observation.pct == 0)
        #expect(observation.high.quote.exchange != observation.low.quote.exchange)
    }

    @Test func fewerThanTwoFreshQuotesGiveNoPremium() {
        let stale = book([quote(.binance, "BTC", "USDT", last: "100000"), quote(.bybit, "BTC", "USDT", last: "101000", age: 31)])
        #expect(PremiumCalculator.observe(rule: rule([.binance, .bybit]), asset: "BTC", book: stale, converter: usd, maxQuoteAge: .seconds(30), now: now) == nil)
        let missing = book([quote(.binance, "BTC", "USDT", last: "100000"), quote(.bybit, "BTC", "USDT", last: "0")])
        #expect(PremiumCalculator.observe(rule: rule([.binance, .bybit]), asset: "BTC", book: missing, converter: usd, maxQuoteAge: .seconds(30), now: now) == nil)
        let single = book([quote(.binance, "BTC", "USDT", last: "100000")])
        #expect(PremiumCalculator.observe(rule: rule([.binance, .bybit]), asset: "BTC", book: single, converter: usd, maxQuoteAge: .seconds(30), now: now) == nil)
    }

    @Test func krwQuotesConvertThroughUSDKRWAndCarryTheRate() throws {
        let rate = FXRate(base: "USD", quote: "KRW", rate: try #require(Price("1400")), provider: "dunamu", at: now)
        let converter = CurrencyConverter(reference: "USD", stablecoinsAs: ["USDT": "USD"], usdRates: ["KRW": rate])
        let book = book([quote(.upbit, "BTC", "KRW", last: "147000000"), quote(.binance, "BTC", "USDT", last: "100000")])
        let kimchi = rule([.upbit, .binance], quotes: ["KRW", "USDT"])
        let observation = try #require(PremiumCalculator.observe(rule: kimchi, asset: "BTC", book: book, converter: converter, maxQuoteAge: .seconds(30), now: now))
        #expect(observation.high.quote.exchange == .upbit)
        #expect(abs(observation.high.priceRef - 105_000) < 1e-6)
        #expect(abs(observation.pct - 5) < 1e-9)
        #expect(observation.rates == [rate])
    }

    @Test func withoutAFreshRateKRWQuotesAreDroppedNotGuessed() {
        let book = book([quote(.upbit, "BTC", "KRW", last: "147000000"), quote(.binance, "BTC", "USDT", last: "100000")])
        let kimchi = rule([.upbit, .binance], quotes: ["KRW", "USDT"])
        #expect(PremiumCalculator.observe(rule: kimchi, asset: "BTC", book: book, converter: usd, maxQuoteAge: .seconds(30), now: now) == nil)
    }

    @Test func firstListedQuoteCurrencyWins() throws {
        let book = book([
            quote(.binance, "BTC", "USDT", last: "100000"), quote(.binance, "BTC", "USDC", last: "90000"),
            quote(.bybit, "BTC", "USDC", last: "100100"),
        ])
        let observation = try #require(PremiumCalculator.observe(rule: rule([.binance, .bybit], quotes: ["USDT", "USDC"]), asset: "BTC", book: book, converter: usd, maxQuoteAge: .seconds(30), now: now))
        #expect(observation.low.quote.quote == "USDT")
        #expect(abs(observation.pct - 0.1) < 1e-9)
    }

    @Test func bidAskBasisComparesBestBidAgainstBestAskOnAnotherExchange() throws {
        let book = book([
            quote(.binance, "BTC", "USDT", last: "100000", bid: "99990", ask: "100000"),
            quote(.bybit, "BTC", "USDT", last: "100200", bid: "100150", ask: "100160"),
        ])
        let observation = try #require(PremiumCalculator.observe(rule: rule([.binance, .bybit], basis: .bidask), asset: "BTC", book: book, converter: usd, maxQuoteAge: .seconds(30), now: now))
        #expect(observation.high.quote.exchange == .bybit)
        #expect(observation.high.side == "bid")
        #expect(observation.low.side == "ask")
        #expect(abs(observation.pct - 0.15) < 1e-9)
    }

    @Test func midBasisNeedsBothSides() throws {
        let book = book([
            quote(.binance, "BTC", "USDT", last: "1", bid: "99990", ask: "100010"),
            quote(.bybit, "BTC", "USDT", last: "1", bid: "100090", ask: "100110"),
            quote(.okx, "BTC", "USDT", last: "500000"),
        ])
        let observation = try #require(PremiumCalculator.observe(rule: rule([.binance, .bybit, .okx], basis: .mid), asset: "BTC", book: book, converter: usd, maxQuoteAge: .seconds(30), now: now))
        #expect(abs(observation.pct - 0.1) < 1e-9)
        #expect(observation.high.quote.exchange == .bybit)
    }
}
