import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// Exchanges that reject a whole request for one unknown market, and Bithumb's per-currency requests:
/// a market the exchange does not list must not cost the quotes of the markets it does.
@Suite struct UnlistedMarketFallbackTests {
    static let start = Date(timeIntervalSince1970: 1_753_894_995)

    @Test func upbitLearnsWhichCodesAreListedAndAsksOnlyForThose() async throws {
        let clock = ManualClock(now: Self.start)
        try await withExchangeServer(clock: clock) { server, fetcher in
            let upbit = ExchangeCase.upbit
            let body = upbit.body(upbit.goodRows)
            server.route("/v1/ticker") { request in
                request.query?.contains("KRW-FOO") == true
                    ? .json(#"{"error":{"name":"404","message":"Code not found"}}"#, status: 404)
                    : .json(body)
            }
            server.route("/v1/market/all", response: .json(
                #"[{"market":"KRW-BTC","korean_name":"비트코인","english_name":"Bitcoin"},{"market":"KRW-ETH","korean_name":"이더리움","english_name":"Ethereum"}]"#))
            let source = upbit.source(server, fetcher)
            let pairs = upbit.watched.union([MarketPair(base: "FOO", quote: "KRW")])

            let first = try await source.fetchQuotes(for: pairs)
            #expect(first.map(\.market) == ["KRW-BTC", "KRW-ETH"])
            #expect(server.requests.map { "\($0.path)?\($0.query ?? "")" } == [
                "/v1/ticker?markets=KRW-BTC,KRW-ETH,KRW-FOO", "/v1/market/all?", "/v1/ticker?markets=KRW-BTC,KRW-ETH",
            ])

            server.clearRequests()
            let second = try await source.fetchQuotes(for: pairs)
            #expect(second.count == 2)
            #expect(server.requests.map(\.query) == ["markets=KRW-BTC,KRW-ETH"])
        }
    }

    @Test func upbitCodeNotFoundForListedMarketsIsReportedNotLooped() async throws {
        try await withExchangeServer { server, fetcher in
            let upbit = ExchangeCase.upbit
            server.route("/v1/ticker", response: .json(#"{"error":{"name":"404","message":"Code not found"}}"#, status: 404))
            server.route("/v1/market/all", response: .json(#"[{"market":"KRW-BTC"},{"market":"KRW-ETH"}]"#))
            let error = try #require(await sourceError { () async throws(SourceError) in
                try await upbit.source(server, fetcher).fetchQuotes(for: upbit.watched)
            })
            #expect(error.kind == .api)
            #expect(error.message.contains("Code not found"))
            #expect(server.requests.count == 2)
        }
    }

    @Test func krakenReadsEveryPairOnceWhenOneIsUnknown() async throws {
        let clock = ManualClock(now: Self.start)
        try await withExchangeServer(clock: clock) { server, fetcher in
            let kraken = ExchangeCase.kraken
            let body = kraken.body(kraken.goodRows)
            server.route("/0/public/Ticker") { request in
                request.query?.contains("FOOUSD") == true ? .json(#"{"error":["EQuery:Unknown asset pair"]}"#) : .json(body)
            }
            let source = kraken.source(server, fetcher)
            let pairs = kraken.watched.union([MarketPair(base: "FOO", quote: "USD")])

            let quotes = try await source.fetchQuotes(for: pairs)
            #expect(quotes.map(\.market) == ["XETHZUSD", "XXBTZUSD"])
            #expect(quotes.map(\.base) == ["ETH", "BTC"])
            #expect(server.requests.map(\.query) == ["pair=ETHUSD,FOOUSD,XBTUSD", nil])

            server.clearRequests()
            #expect(try await source.fetchQuotes(for: pairs).count == 2)
            #expect(server.requests.map(\.query) == ["pair=ETHUSD,XBTUSD"])
        }
    }

    @Test func bithumbSkipsAQuoteCurrencyItRefusesButKeepsTheOthers() async throws {
        try await withExchangeServer { server, fetcher in
            let bithumb = ExchangeCase.bithumb
            bithumb.serve(bithumb.goodRows, on: server)
            server.route("/public/ticker/ALL_USDT", response: .json(#"{"status":"5500","message":"Invalid Parameter"}"#))
            let pairs = bithumb.watched.union([MarketPair(base: "BTC", quote: "USDT")])
            let quotes = try await bithumb.source(server, fetcher).fetchQuotes(for: pairs)
            #expect(quotes.map(\.market) == ["BTC_KRW", "ETH_KRW"])
            #expect(Set(server.requests.map(\.path)) == ["/public/ticker/ALL_KRW", "/public/ticker/ALL_USDT"])
        }
    }

    @Test func bithumbFailsThePollWhenAnyCurrencyFailsForAnotherReason() async throws {
        try await withExchangeServer { server, fetcher in
            let bithumb = ExchangeCase.bithumb
            bithumb.serve(bithumb.goodRows, on: server)
            server.route("/public/ticker/ALL_USDT", response: .json("{}", status: 503))
            let pairs = bithumb.watched.union([MarketPair(base: "BTC", quote: "USDT")])
            let error = try #require(await sourceError { () async throws(SourceError) in
                try await bithumb.source(server, fetcher).fetchQuotes(for: pairs)
            })
            #expect(error.kind == .http(status: 503))
        }
    }

    @Test func bithumbWithEveryCurrencyRefusedIsAnAPIError() async throws {
        try await withExchangeServer { server, fetcher in
            let bithumb = ExchangeCase.bithumb
            server.route("/public/ticker/ALL_KRW", response: .json(#"{"status":"5600","message":"Temporary maintenance"}"#))
            let error = try #require(await sourceError { () async throws(SourceError) in
                try await bithumb.source(server, fetcher).fetchQuotes(for: bithumb.watched)
            })
            #expect(error.kind == .api)
            #expect(error.message == "ALL_KRW: status 5600: Temporary maintenance")
        }
    }

    @Test func coinbaseRateLimitOnOneProductFailsThePoll() async throws {
        try await withExchangeServer { server, fetcher in
            let coinbase = ExchangeCase.coinbase
            coinbase.serve(coinbase.goodRows, on: server)
            server.route(
                "/products/ETH-USD/ticker",
                response: MockHTTPServer.Response(status: 429, headers: [("Retry-After", "3")], body: Data(#"{"message":"Slow down"}"#.utf8)))
            let error = try #require(await sourceError { () async throws(SourceError) in
                try await coinbase.source(server, fetcher).fetchQuotes(for: coinbase.watched)
            })
            #expect(error.kind == .rateLimited(status: 429, retryAfter: .seconds(3)))
        }
    }

    @Test func coinbaseAsksForEachProductOnce() async throws {
        try await withExchangeServer { server, fetcher in
            let coinbase = ExchangeCase.coinbase
            let pairs = Set(["BTC", "ETH", "SOL", "DOGE", "XRP", "ADA", "LTC"].map { MarketPair(base: $0, quote: "USD") })
            for pair in pairs {
                server.route("/products/\(pair.base)-USD/ticker", response: .json(coinbase.body([TickerRow(pair: pair, last: "1.5", bid: "1.4", ask: "1.6")])))
            }
            let quotes = try await coinbase.source(server, fetcher).fetchQuotes(for: pairs)
            #expect(quotes.count == pairs.count)
            #expect(server.requests.map(\.path).sorted() == pairs.map { "/products/\($0.base)-USD/ticker" }.sorted())
            #expect(quotes.allSatisfy { $0.exchangeTime != nil && $0.last?.exact == Decimal(string: "1.5") })
        }
    }
}
