import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// Over HTTP, on every exchange: a watched row whose price was sent but is unusable (out of range, padded,
/// full-width) is counted in the poll with a sample, and never becomes a price.
@Suite("Rejected price rows are counted")
struct RejectedPriceRowTests {
    static let badPrices = ["1e39", "１００", " 67000.5", "1e-13", "1" + String(repeating: "0", count: 39)]

    @Test(arguments: ExchangeCase.all, badPrices)
    func rejectedRowsAreCounted(_ exchange: ExchangeCase, bad: String) async throws {
        try await withExchangeServer { server, fetcher in
            exchange.serve([
                TickerRow(pair: exchange.btc, last: bad, bid: "67000.4", ask: "67000.6"),
                TickerRow(pair: exchange.eth, last: "3500.25", bid: "3500.2", ask: "3500.3"),
            ], on: server)
            let poll = try await exchange.source(server, fetcher).fetchPoll(for: exchange.watched)
            #expect(poll.rejected == 1)
            let sample = try #require(poll.rejectedSample)
            #expect(sample.hasPrefix("\(exchange.marketID(exchange.btc)) last \""), "\(sample)")
            #expect(sample.contains(String(bad.trimmingCharacters(in: .whitespaces).prefix(20))), "\(sample)")
            let btc = poll.quotes.first { $0.base == "BTC" }
            #expect(btc?.last == nil)
            if exchange.hasBidAsk { #expect(btc?.bid?.exact == Decimal(string: "67000.4")) } else { #expect(btc == nil) }
            #expect(poll.quotes.first { $0.base == "ETH" }?.last?.exact == Decimal(string: "3500.25"))
        }
    }

    @Test(arguments: ExchangeCase.all)
    func aCleanPollCountsNothingAndNullIsNotARejection(_ exchange: ExchangeCase) async throws {
        try await withExchangeServer { server, fetcher in
            exchange.serve(exchange.goodRows, on: server)
            let poll = try await exchange.source(server, fetcher).fetchPoll(for: exchange.watched)
            #expect(poll == QuotePoll(quotes: poll.quotes, rejected: 0, rejectedSample: nil))
            #expect(poll.quotes.count == 2)
        }
    }
}
