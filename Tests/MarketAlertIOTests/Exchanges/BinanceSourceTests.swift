import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// Binance's request-weight guard and its fallback for unlisted symbols, in virtual time.
@Suite struct BinanceSourceTests {
    static let path = "/api/v3/ticker/24hr"
    /// 2024-03-10T02:46:30Z, half way through a minute.
    static let start = Date(timeIntervalSince1970: 1_710_038_790)
    let exchange = ExchangeCase.binance

    private func source(_ server: MockHTTPServer, _ fetcher: HTTPFetcher) -> BinanceTickerSource {
        BinanceTickerSource(settings: ExchangeSettings(id: .binance, baseURL: server.baseURL), fetcher: fetcher)
    }

    private func answer(usedWeight: Int) -> MockHTTPServer.Response {
        MockHTTPServer.Response(
            headers: [("Content-Type", "application/json"), ("X-MBX-USED-WEIGHT-1M", String(usedWeight))],
            body: Data(exchange.body(exchange.goodRows).utf8))
    }

    @Test func weightNearTheLimitRefusesTheNextCallLocallyUntilTheNextMinute() async throws {
        let clock = ManualClock(now: Self.start)
        try await withExchangeServer(clock: clock) { server, fetcher in
            let binance = source(server, fetcher)
            server.route(Self.path, response: answer(usedWeight: 5399))
            _ = try await binance.fetchQuotes(for: exchange.watched)
            _ = try await binance.fetchQuotes(for: exchange.watched)
            #expect(server.requests.count == 2, "below 90% of 6000 nothing is held back")

            server.route(Self.path, response: answer(usedWeight: 5400))
            #expect(try await binance.fetchQuotes(for: exchange.watched).count == 2)
            #expect(server.requests.count == 3)

            await clock.advance(by: .seconds(1))
            let refused = try #require(await sourceError { () async throws(SourceError) in try await binance.fetchQuotes(for: exchange.watched) })
            #expect(refused.kind == .rateLimited(status: 429, retryAfter: .seconds(29)))
            #expect(refused.source == "binance")
            #expect(refused.message.contains("5400"))
            #expect(server.requests.count == 3, "refused without a request")

            await clock.advance(by: .seconds(29))  // 02:47:00, a new weight window
            server.route(Self.path, response: answer(usedWeight: 2))
            #expect(try await binance.fetchQuotes(for: exchange.watched).count == 2)
            #expect(server.requests.count == 4)
        }
    }

    @Test func afterA418TheServersRetryAfterIsHonouredLocally() async throws {
        let clock = ManualClock(now: Self.start)
        try await withExchangeServer(clock: clock) { server, fetcher in
            let binance = source(server, fetcher)
            server.route(Self.path, response: MockHTTPServer.Response(status: 418, headers: [("Retry-After", "120")], body: Data()))
            let banned = try #require(await sourceError { () async throws(SourceError) in try await binance.fetchQuotes(for: exchange.watched) })
            #expect(banned.kind == .rateLimited(status: 418, retryAfter: .seconds(120)))
            #expect(server.requests.count == 1)

            await clock.advance(by: .seconds(100))
            let refused = try #require(await sourceError { () async throws(SourceError) in try await binance.fetchQuotes(for: exchange.watched) })
            #expect(refused.kind == .rateLimited(status: 429, retryAfter: .seconds(20)))
            #expect(server.requests.count == 1, "no request while banned")

            await clock.advance(by: .seconds(20))
            server.route(Self.path, response: answer(usedWeight: 10))
            #expect(try await binance.fetchQuotes(for: exchange.watched).count == 2)
            #expect(server.requests.count == 2)
        }
    }

    /// A rule asking Binance for BTC/KRW must not stop the BTC/USDT quotes: Binance rejects the whole
    /// filtered request, the source reads the full list once and leaves BTCKRW out for an hour.
    @Test func anUnlistedSymbolFallsBackToTheFullListOnceAndIsThenLeftOut() async throws {
        let clock = ManualClock(now: Self.start)
        try await withExchangeServer(clock: clock) { server, fetcher in
            let rows = exchange.goodRows
            let body = exchange.body(rows)
            server.route(Self.path) { request in
                if request.query?.contains("BTCKRW") == true {
                    return .json(#"{"code":-1121,"msg":"Invalid symbol."}"#, status: 400)
                }
                return .json(body)
            }
            let binance = source(server, fetcher)
            let pairs: Set<MarketPair> = [exchange.btc, exchange.eth, MarketPair(base: "BTC", quote: "KRW")]

            let first = try await binance.fetchQuotes(for: pairs)
            #expect(first.map(\.market) == ["BTCUSDT", "ETHUSDT"])
            #expect(server.requests.map(\.query) == ["symbols=%5B%22BTCKRW%22,%22BTCUSDT%22,%22ETHUSDT%22%5D", nil])

            server.clearRequests()
            #expect(try await binance.fetchQuotes(for: pairs).map(\.market) == ["BTCUSDT", "ETHUSDT"])
            #expect(server.requests.map(\.query) == ["symbols=%5B%22BTCUSDT%22,%22ETHUSDT%22%5D"])

            server.clearRequests()
            await clock.advance(by: .seconds(3601))
            _ = try await binance.fetchQuotes(for: pairs)
            #expect(server.requests.first?.query?.contains("BTCKRW") == true, "checked again after an hour")
        }
    }

    @Test func onlyUnlistedSymbolsIsEmptyWithoutFurtherRequests() async throws {
        let clock = ManualClock(now: Self.start)
        try await withExchangeServer(clock: clock) { server, fetcher in
            let body = exchange.body(exchange.goodRows)
            server.route(Self.path) { request in
                request.query == nil ? .json(body) : .json(#"{"code":-1121,"msg":"Invalid symbol."}"#, status: 400)
            }
            let binance = source(server, fetcher)
            let krw: Set<MarketPair> = [MarketPair(base: "BTC", quote: "KRW")]
            let first = try #require(await sourceError { () async throws(SourceError) in try await binance.fetchQuotes(for: krw) })
            #expect(first.kind == .empty)
            #expect(first.message.contains("BTCKRW"))
            #expect(server.requests.count == 2)

            let second = try #require(await sourceError { () async throws(SourceError) in try await binance.fetchQuotes(for: krw) })
            #expect(second.kind == .empty)
            #expect(second.message.contains("not listed") || second.message.contains("none of the watched"), "\(second.message)")
            #expect(server.requests.count == 2)
        }
    }

    @Test func otherAPIErrorsDoNotTriggerTheFallback() async throws {
        try await withExchangeServer { server, fetcher in
            server.route(Self.path, response: .json(#"{"code":-1003,"msg":"Too much request weight used."}"#, status: 400))
            let error = try #require(await sourceError { () async throws(SourceError) in
                try await source(server, fetcher).fetchQuotes(for: exchange.watched)
            })
            #expect(error.kind == .api)
            #expect(error.message.contains("-1003"))
            #expect(server.requests.count == 1)
        }
    }
}
