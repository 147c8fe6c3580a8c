import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// When the exchange says a watched market does not exist, the stream hands it to REST (`.restOnly`) and
/// streams the others; when it says so of every one, the stream stops trying: one `.down`, no reconnect
/// storm against a permanent refusal.
@Suite struct StreamRefusalTests {
    @Test func aRefusedMarketIsHandedToRESTAndTheOthersStream() async throws {
        try await withStream(.okx, refusing: ["ETH-USDT"]) { h in
            let eth = MarketPair(base: "ETH", quote: "USDT")
            try await h.waitFor("ETH-USDT handed to REST") { $0.all.contains(.restOnly([eth])) }
            // The refusal ends that connection's subscription; the next one leaves ETH-USDT out and goes live.
            for _ in 0..<60 where h.lives == 0 {
                try await h.advance(by: .seconds(1))
            }
            try await h.waitLive()
            let restOnly = h.all.filter { if case .restOnly = $0 { true } else { false } }
            #expect(restOnly == [.restOnly([eth])], "told once, before the stream went live: \(h.all.map(StreamTestHarness.describe))")
            let live = try #require(h.server.connections.last)
            #expect(live.texts.contains { $0.contains("BTC-USDT") })
            #expect(!live.texts.contains { $0.contains("ETH-USDT") })
            #expect(h.downs.allSatisfy { !$0.contains("every watched market was refused") })
        }
    }

    @Test func everyMarketRefusedStopsTheStream() async throws {
        try await withStream(.kraken, refusing: ["BTC/USD", "ETH/USD", "SOL/USD"]) { h in
            // Kraken refuses symbol by symbol: the first refusal already drops the connection, the last one
            // leaves nothing to subscribe to.
            try await h.waitFor("the stream stopped") { $0.downs.last?.contains("every watched market was refused") == true }
            try await h.advance(by: .seconds(120), step: .seconds(10))
            try await h.settle()
            #expect(h.server.connections.count == 1)
            #expect(h.downs.count <= 2)
            #expect(h.lives == 0)
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
