import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// Coinbase Exchange answers one product per request and allows 10 public requests a second per IP: a poll
/// of many products is paced (7 a second, the rest left to the book polls) on the injected clock, instead of
/// going out at once and coming back as 429s.
@Suite struct CoinbasePacingTests {
    static let assets = ["BTC", "ETH", "SOL", "DOGE", "XRP", "ADA", "LTC", "DOT", "LINK", "AVAX", "UNI", "ATOM", "XLM", "BCH", "AAVE", "FIL"]

    @Test func aPollOfSixteenProductsSendsSevenASecond() async throws {
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_790_000_000))
        try await withExchangeServer(clock: clock) { server, fetcher in
            let coinbase = ExchangeCase.coinbase
            let pairs = Set(Self.assets.map { MarketPair(base: $0, quote: "USD") })
            for pair in pairs {
                server.route("/products/\(pair.base)-USD/ticker", response: .json(coinbase.body([TickerRow(pair: pair, last: "2.5", bid: "2.4", ask: "2.6")])))
            }
            let source = coinbase.source(server, fetcher)
            let poll = Task { try await source.fetchQuotes(for: pairs) }

            // The first second's seven go out; the eighth waits for the pacer on the daemon's clock.
            let start = clock.now()
            try await clock.waitForSleeper(CoinbaseTickerSource.paceLabel, at: start.addingTimeInterval(1))
            try await pollUntil("the first 7 requests") { server.requests.count == 7 }
            #expect(server.requests.count == 7)

            await clock.advance(by: .seconds(1))
            try await clock.waitForSleeper(CoinbaseTickerSource.paceLabel, at: start.addingTimeInterval(2))
            try await pollUntil("14 requests") { server.requests.count == 14 }
            #expect(server.requests.count == 14)

            await clock.advance(by: .seconds(1))
            let quotes = try await poll.value
            #expect(quotes.count == 16)
            #expect(server.requests.count == 16)
            #expect(Set(server.requests.map(\.path)) == Set(pairs.map { "/products/\($0.base)-USD/ticker" }))
        }
    }

    @Test func aPollOfSevenProductsNeverWaits() async throws {
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_790_000_000))
        try await withExchangeServer(clock: clock) { server, fetcher in
            let coinbase = ExchangeCase.coinbase
            let pairs = Set(Self.assets.prefix(7).map { MarketPair(base: $0, quote: "USD") })
            for pair in pairs {
                server.route("/products/\(pair.base)-USD/ticker", response: .json(coinbase.body([TickerRow(pair: pair, last: "2.5", bid: "2.4", ask: "2.6")])))
            }
            // No clock advance: the poll completes on its own.
            let quotes = try await coinbase.source(server, fetcher).fetchQuotes(for: pairs)
            #expect(quotes.count == 7)
            #expect(clock.deadlines(of: CoinbaseTickerSource.paceLabel).isEmpty)
        }
    }
}
