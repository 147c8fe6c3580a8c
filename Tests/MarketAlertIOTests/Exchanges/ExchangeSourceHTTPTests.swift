import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// Each real source against a real HTTP server on 127.0.0.1: what it asks, what it makes of the answer, and
/// the `SourceError` it gives for every kind of bad answer.
@Suite struct ExchangeSourceHTTPTests {
    @Test(arguments: ExchangeCase.all)
    func asksForTheWatchedMarketsAndNormalizesTheAnswer(_ exchange: ExchangeCase) async throws {
        try await withExchangeServer { server, fetcher in
            exchange.serve(exchange.goodRows, on: server)
            let source = exchange.source(server, fetcher)
            #expect(source.exchange == exchange.id)
            let quotes = try await source.fetchQuotes(for: exchange.watched)

            let requests = server.requests.map { ($0.path, $0.query) }.sorted { $0.0 < $1.0 }
            let expected = exchange.expectedRequests.sorted { $0.path < $1.path }
            #expect(requests.map(\.0) == expected.map(\.path))
            #expect(requests.map(\.1) == expected.map(\.query))
            #expect(server.requests.allSatisfy { $0.method == "GET" })

            #expect(quotes.map(\.market).sorted() == [exchange.btc, exchange.eth].map(exchange.marketID).sorted())
            let btc = try #require(quotes.first { $0.base == "BTC" })
            #expect(btc.exchange == exchange.id)
            #expect(btc.quote == exchange.quoteCurrency)
            #expect(btc.last?.exact == Decimal(string: "67000.5"))
            #expect(btc.bid?.exact == (exchange.hasBidAsk ? Decimal(string: "67000.4") : nil))
            #expect(btc.ask?.exact == (exchange.hasBidAsk ? Decimal(string: "67000.6") : nil))
            #expect(quotes.first { $0.base == "ETH" }?.last?.exact == Decimal(string: "3500.25"))
        }
    }

    @Test func binanceSendsExactlyTheWatchedSymbolsAsAJSONArray() async throws {
        try await withExchangeServer { server, fetcher in
            let exchange = ExchangeCase.binance
            exchange.serve(exchange.goodRows, on: server)
            let pairs: Set<MarketPair> = [exchange.btc, exchange.eth, MarketPair(base: "sol", quote: "usdt")]
            _ = try await exchange.source(server, fetcher).fetchQuotes(for: pairs)
            let query = try #require(server.requests.first?.query)
            #expect(query.hasPrefix("symbols="))
            let list = try #require(String(query.dropFirst("symbols=".count)).removingPercentEncoding)
            #expect(Set(try JSONDecoder().decode([String].self, from: Data(list.utf8))) == ["BTCUSDT", "ETHUSDT", "SOLUSDT"])
        }
    }

    @Test(arguments: ExchangeCase.all)
    func nothingWatchedMeansNoRequest(_ exchange: ExchangeCase) async throws {
        try await withExchangeServer { server, fetcher in
            exchange.serve(exchange.goodRows, on: server)
            let quotes = try await exchange.source(server, fetcher).fetchQuotes(for: [])
            #expect(quotes.isEmpty)
            #expect(server.requests.isEmpty)
        }
    }

    @Test(arguments: ExchangeCase.all)
    func rateLimitedWithRetryAfter(_ exchange: ExchangeCase) async throws {
        try await withExchangeServer { server, fetcher in
            exchange.serve(
                MockHTTPServer.Response(status: 429, headers: [("Content-Type", "application/json"), ("Retry-After", "7")], body: Data("{}".utf8)),
                on: server)
            let error = try await #require(failure(exchange, server, fetcher))
            #expect(error.kind == .rateLimited(status: 429, retryAfter: .seconds(7)))
            #expect(error.retryAfter == .seconds(7))
        }
    }

    @Test(arguments: ExchangeCase.all)
    func bannedWith418(_ exchange: ExchangeCase) async throws {
        try await withExchangeServer { server, fetcher in
            exchange.serve(
                MockHTTPServer.Response(status: 418, headers: [("Retry-After", "120")], body: Data()), on: server)
            let error = try await #require(failure(exchange, server, fetcher))
            #expect(error.kind == .rateLimited(status: 418, retryAfter: .seconds(120)))
        }
    }

    @Test(arguments: ExchangeCase.all)
    func serverError(_ exchange: ExchangeCase) async throws {
        try await withExchangeServer { server, fetcher in
            exchange.serve(.json(#"{"message":"internal"}"#, status: 500), on: server)
            let error = try await #require(failure(exchange, server, fetcher))
            #expect(error.kind == .http(status: 500))
        }
    }

    @Test(arguments: ExchangeCase.all)
    func htmlPageWithStatus200(_ exchange: ExchangeCase) async throws {
        try await withExchangeServer { server, fetcher in
            exchange.serve(
                MockHTTPServer.Response(
                    headers: [("Content-Type", "text/html")],
                    body: Data("<!DOCTYPE html><html><body>Cloudflare: checking your browser</body></html>".utf8)),
                on: server)
            let error = try await #require(failure(exchange, server, fetcher))
            #expect(error.kind == .decode)
            #expect(error.message.contains("HTML"))
        }
    }

    @Test(arguments: ExchangeCase.all)
    func truncatedJSON(_ exchange: ExchangeCase) async throws {
        try await withExchangeServer { server, fetcher in
            let whole = exchange.body(exchange.goodRows)
            exchange.serve(.json(String(whole.prefix(whole.count / 2))), on: server)
            let error = try await #require(failure(exchange, server, fetcher))
            #expect(error.kind == .decode)
            #expect(error.message.localizedCaseInsensitiveContains("JSON"), "\(error.message)")
        }
    }

    @Test(arguments: ExchangeCase.all)
    func wrongShape(_ exchange: ExchangeCase) async throws {
        try await withExchangeServer { server, fetcher in
            exchange.serve(.json(#"{"unexpected":[1,2,3]}"#), on: server)
            let error = try await #require(failure(exchange, server, fetcher))
            #expect(error.kind == .decode, "\(error)")
        }
    }

    @Test(arguments: ExchangeCase.all)
    func emptyList(_ exchange: ExchangeCase) async throws {
        try await withExchangeServer { server, fetcher in
            exchange.serve([], on: server)
            let error = try await #require(failure(exchange, server, fetcher))
            #expect(error.kind == .empty)
        }
    }

    @Test(arguments: ExchangeCase.all)
    func noneOfTheWatchedMarketsNamesThem(_ exchange: ExchangeCase) async throws {
        try await withExchangeServer { server, fetcher in
            exchange.serve([TickerRow(pair: exchange.ltc, last: "80.1", bid: "80", ask: "80.2")], on: server)
            let error = try await #require(failure(exchange, server, fetcher))
            #expect(error.kind == .empty)
            let names = exchange.id == .kraken ? ["XBTUSD", "ETHUSD"] : [exchange.btc, exchange.eth].map(exchange.marketID)
            for name in names { #expect(error.message.contains(name), "\(error.message)") }
        }
    }

    @Test(arguments: ExchangeCase.all)
    func partialPresenceReturnsWhatWasFound(_ exchange: ExchangeCase) async throws {
        try await withExchangeServer { server, fetcher in
            exchange.serve([TickerRow(pair: exchange.eth, last: "3500.25", bid: "3500.2", ask: "3500.3")], on: server)
            let quotes = try await exchange.source(server, fetcher).fetchQuotes(for: exchange.watched)
            #expect(quotes.map(\.base) == ["ETH"])
        }
    }

    @Test(arguments: ExchangeCase.all)
    func exchangeErrorEnvelope(_ exchange: ExchangeCase) async throws {
        try await withExchangeServer { server, fetcher in
            exchange.serve(.json(exchange.apiError.body, status: exchange.apiError.status), on: server)
            let error = try await #require(failure(exchange, server, fetcher))
            #expect(error.kind == .api, "\(error)")
        }
    }

    /// Zero, negative and NaN never become prices: such fields are nil, a market with none left is dropped.
    @Test(arguments: ExchangeCase.all)
    func zeroNegativeAndNaNPrices(_ exchange: ExchangeCase) async throws {
        try await withExchangeServer { server, fetcher in
            exchange.serve([
                TickerRow(pair: exchange.btc, last: "0", bid: "-1", ask: "NaN"),
                TickerRow(pair: exchange.eth, last: "3500.25", bid: "0.00000000", ask: "-3500.3"),
            ], on: server)
            let quotes = try await exchange.source(server, fetcher).fetchQuotes(for: exchange.watched)
            #expect(quotes.map(\.base) == ["ETH"])
            #expect(quotes.first?.last?.exact == Decimal(string: "3500.25"))
            #expect(quotes.first?.bid == nil)
            #expect(quotes.first?.ask == nil)

            exchange.serve([
                TickerRow(pair: exchange.btc, last: "0", bid: "-1", ask: "NaN"),
                TickerRow(pair: exchange.eth, last: "-2", bid: "0", ask: "0"),
            ], on: server)
            let error = try await #require(failure(exchange, server, fetcher))
            #expect(error.kind == .empty)
            #expect(error.message.contains("no usable price"), "\(error.message)")
        }
    }

    @Test(arguments: ExchangeCase.all)
    func timeout(_ exchange: ExchangeCase) async throws {
        try await withExchangeServer { server, fetcher in
            // 25× the timeout: even a starved event loop must see the deadline before the answer.
            exchange.serve(MockHTTPServer.Response(body: Data(exchange.body(exchange.goodRows).utf8), delay: .seconds(5)), on: server)
            let error = try await #require(failure(exchange, server, fetcher, timeout: .milliseconds(200)))
            #expect(error.kind == .timeout)
        }
    }

    /// Polls once and returns the error, checking that it names the source.
    private func failure(
        _ exchange: ExchangeCase, _ server: MockHTTPServer, _ fetcher: HTTPFetcher, timeout: Duration = .seconds(5)
    ) async -> SourceError? {
        let source = exchange.source(server, fetcher, timeout: timeout)
        let error = await sourceError { () async throws(SourceError) in try await source.fetchQuotes(for: exchange.watched) }
        #expect(error?.source == exchange.id.rawValue)
        #expect(error.map { $0.description.hasPrefix("\(exchange.id.rawValue): ") } ?? false)
        return error
    }
}
