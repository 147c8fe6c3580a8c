import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// When the exchange says a watched market does not exist, the stream hands it to REST (`.restOnly`) and
/// streams the others; when it says so of every one, the stream stops trying: one `.down`, no reconnect
/// storm against a permanent refusal.
@Suite struct StreamRefusalTests {
    @Test func aRefusedMarketIsHandedToRESTAndTheOthersStreamOnTheSameConnection() async throws {
        try await withStream(.okx, refusing: ["ETH-USDT"]) { h in
            let eth = MarketPair(base: "ETH", quote: "USDT")
            try await h.waitFor("ETH-USDT handed to REST") { $0.all.contains(.restOnly([eth])) }
            try await h.waitLive()
            let restOnly = h.all.filter { if case .restOnly = $0 { true } else { false } }
            #expect(restOnly == [.restOnly([eth])], "told once, before the stream went live: \(h.all.map(StreamTestHarness.describe))")
            #expect(h.server.connections.count == 1)
            #expect(h.downs.isEmpty)
        }
    }

    /// Issue #26 item 2: a refused market is asked for again (after 1 min, on the same connection), and
    /// once its data arrives REST leaves it to the stream.
    @Test func aRefusedMarketIsAskedForAgainAndStreamsOnceTheExchangeTakesIt() async throws {
        try await withStream(.okx, refusing: ["ETH-USDT"]) { h in
            let eth = MarketPair(base: "ETH", quote: "USDT")
            try await h.waitLive()
            try await h.waitFor("ETH-USDT handed to REST") { $0.all.contains(.restOnly([eth])) }
            h.knobs.refuse([])  // the maintenance is over
            let btc = #"{"arg":{"channel":"tickers","instId":"BTC-USDT"},"data":[{"instId":"BTC-USDT","last":"30000.5","askPx":"30000.6","bidPx":"30000.4","ts":"1652459229140"}]}"#
            @Sendable func asks(_ h: StreamTestHarness) -> Int { h.server.connections.first?.texts.filter { $0.contains("ETH-USDT") }.count ?? 0 }
            // Each BTC frame is seen by the source before virtual time moves on: a frame still in flight when the
            // clock passes `stale_after` would make the connection look dead (a reconnect under a loaded run).
            @Sendable func pushBTC(_ h: StreamTestHarness) async throws {
                let before = h.quotes.count
                h.server.push(btc)
                try await h.waitFor("a BTC quote") { $0.quotes.count > before }
            }
            for _ in 0..<5 {
                try await pushBTC(h)
                try await h.advance(by: .seconds(10))
            }
            #expect(asks(h) == 1, "not asked for again before a minute has passed")
            for _ in 0..<3 where asks(h) < 2 {
                try await pushBTC(h)
                try await h.advance(by: .seconds(5))
            }
            try await h.waitFor("ETH-USDT asked for again on the same connection") { asks($0) >= 2 }
            h.server.push(StreamCase.okx.fresh)
            for _ in 0..<10 where !h.all.contains(.restOnly([])) {
                try await h.settle()
                try await pushBTC(h)
                try await h.advance(by: .seconds(2))
            }
            try await h.waitFor("ETH-USDT back on the stream") { $0.all.contains(.restOnly([])) }
            #expect(h.latest("ETH-USDT")?.last?.exact == Decimal(string: "2000.5"))
            #expect(h.server.connections.count == 1)
            #expect(h.downs.isEmpty, "\(h.downs)")
        }
    }

    @Test func everyMarketRefusedPausesTheStreamAndReopensWhenOneIsAskedForAgain() async throws {
        try await withStream(.kraken, refusing: ["BTC/USD", "ETH/USD", "SOL/USD"]) { h in
            try await h.waitFor("the stream paused") { $0.downs.last?.contains("every watched market was refused") == true }
            #expect(h.downs.last?.contains("asks again in 60s") == true, "\(h.downs)")
            try await h.advance(by: .seconds(50), step: .seconds(10))
            try await h.settle()
            #expect(h.server.connections.count == 1, "no reconnect storm against a refusal")
            #expect(h.lives == 0)
            // The refusal was transient (Kraken's maintenance): a minute after it, a connection is reopened.
            h.knobs.refuse([])
            try await h.advance(by: .seconds(11), step: .seconds(1))
            try await h.server.waitUntil("a connection reopened") { $0.connections.count == 2 }
            try await h.waitLive()
            #expect(h.downs.count == 1)
        }
    }

    @Test func refusalsNameTheMissingMarketInEachExchangesWords() {
        func refused(_ stream: some ExchangeStreamProtocol, _ pairs: Set<MarketPair>, _ text: String) -> [String] {
            var table = StreamMarketTable(pairs: pairs, marketID: stream.marketID)
            table.beginFrame()
            let frame = Array(text.utf8).withUnsafeBytes { stream.decode($0, into: &table, receivedAt: Date()) }
            guard case .rejected(_, let markets) = frame else { return [] }
            return markets.filter(Set(table.markets).contains)
        }
        let xyz = MarketPair(base: "XYZ", quote: "USDT")
        #expect(refused(OKXStream(), [xyz], #"{"event":"error","code":"60018","msg":"Wrong URL or channel:tickers,instId:XYZ-USDT doesn't exist","connId":"a"}"#) == ["XYZ-USDT"])
        #expect(refused(OKXStream(), [xyz], #"{"event":"error","code":"60012","msg":"Invalid request: XYZ-USDT","connId":"a"}"#).isEmpty)
        #expect(refused(BybitStream(), [xyz], #"{"success":false,"ret_msg":"Invalid symbol :[orderbook.1.XYZUSDT]","conn_id":"c","req_id":"sub-1","op":"subscribe"}"#) == ["XYZUSDT"])
        #expect(refused(BitgetStream(), [xyz], #"{"event":"error","arg":{"instType":"SPOT","channel":"ticker","instId":"XYZUSDT"},"code":30001,"msg":"instType:SPOT,channel:ticker,instId:XYZUSDT doesn't exist","op":"subscribe"}"#).contains("XYZUSDT"))
        #expect(refused(KrakenStream(), [MarketPair(base: "XYZ", quote: "USD")], #"{"error":"Currency pair not supported XYZ/USD","method":"subscribe","success":false,"symbol":"XYZ/USD"}"#) == ["XYZ/USD"])
        #expect(refused(KrakenStream(), [MarketPair(base: "XYZ", quote: "USD")], #"{"error":"Exceeded msg rate","method":"subscribe","success":false,"symbol":"XYZ/USD"}"#).isEmpty)
        #expect(refused(CoinbaseStream(), [MarketPair(base: "XYZ", quote: "USD")], #"{"type":"error","message":"Failed to subscribe","reason":"XYZ-USD is not a valid product"}"#) == ["XYZ-USD"])
    }
}
