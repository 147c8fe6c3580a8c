import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// Binance specifics: the SUBSCRIBE messages, frame classification, and the make-before-break switch on a
/// `serverShutdown` notice over real sockets.
@Suite struct BinanceStreamTests {
    let stream = BinanceStream()

    func decode(_ text: String, pairs: Set<MarketPair> = [MarketPair(base: "BNB", quote: "USDT")]) -> (StreamFrame, StreamMarketTable) {
        var table = StreamMarketTable(pairs: pairs, marketID: stream.marketID)
        table.beginFrame()
        let frame = Array(text.utf8).withUnsafeBytes { stream.decode($0, into: &table, receivedAt: Date(timeIntervalSince1970: 0)) }
        return (frame, table)
    }

    @Test func subscribesToBookTickerAndTickerOfEverySymbolInMessagesOf200Streams() throws {
        let markets = (0..<150).map { "COIN\($0)USDT" }
        let plan = stream.subscription(for: markets)
        #expect(plan.messages.count == 2)
        #expect(plan.acks == ["id:1", "id:2"])
        #expect(!plan.liveOnFirstData)
        let first = try #require(StreamPersonas.object(plan.messages[0]))
        #expect(first["method"] as? String == "SUBSCRIBE")
        #expect(first["id"] as? Int == 1)
        #expect((first["params"] as? [String])?.count == 200)
        #expect((first["params"] as? [String])?.prefix(2) == ["coin0usdt@bookTicker", "coin0usdt@ticker"])
        let second = try #require(StreamPersonas.object(plan.messages[1]))
        #expect((second["params"] as? [String])?.count == 100)
    }

    @Test func classifiesEveryKindOfFrame() {
        #expect(decode(#"{"result":null,"id":7}"#).0 == .acked(keys: ["id:7"], complete: false))
        #expect(decode(#"{"error":{"code":2,"msg":"Invalid request: unknown variable"},"id":1}"#).0
            == .rejected(reason: "2 Invalid request: unknown variable"))
        #expect(decode(#"{"code":3,"msg":"Invalid JSON"}"#).0 == .rejected(reason: "3 Invalid JSON"))
        #expect(decode(#"{"e":"serverShutdown","E":1728972148778}"#).0 == .shutdownNotice)
        #expect(decode(#"{"stream":"x","data":{"e":"serverShutdown","E":1728972148778}}"#).0 == .shutdownNotice)
        #expect(decode(#"{"u":1,"s":"ETHUSDT","b":"1.0","B":"1","a":"1.1","A":"1"}"#).0 == .unwatched)
        #expect(decode(#"{"e":"kline","E":1,"s":"BNBUSDT"}"#).0 == .ignored)
        let (frame, table) = decode(#"{"u":400900217,"s":"BNBUSDT","b":"25.35190000","B":"31.21000000","a":"25.36520000","A":"40.66000000"}"#)
        #expect(frame == .data)
        #expect(table.touched == [0])
        #expect(table.entries[0].bid?.exact == Decimal(string: "25.3519"))
        #expect(table.entries[0].ask?.exact == Decimal(string: "25.3652"))
        #expect(table.entries[0].last == nil)
    }

    @Test func tickerAndBookTickerMergeIntoOneQuote() throws {
        var table = StreamMarketTable(pairs: [MarketPair(base: "BNB", quote: "USDT")], marketID: stream.marketID)
        for text in [#"{"u":1,"s":"BNBUSDT","b":"25.1","B":"1","a":"25.2","A":"1"}"#,
                     #"{"e":"24hrTicker","E":1672515782136,"s":"BNBUSDT","c":"25.15","b":"20","a":"30"}"#] {
            table.beginFrame()
            _ = Array(text.utf8).withUnsafeBytes { stream.decode($0, into: &table, receivedAt: Date()) }
        }
        let quote = table.quote(0, exchange: .binance, receivedAt: Date(timeIntervalSince1970: 5))
        #expect(quote.bid?.exact == Decimal(string: "25.1"))
        #expect(quote.ask?.exact == Decimal(string: "25.2"))
        #expect(quote.last?.exact == Decimal(string: "25.15"))
        #expect(quote.exchangeTime == Date(timeIntervalSince1970: 1_672_515_782.136))
        #expect(quote.transport == .stream)
    }

    @Test func aShutdownNoticeSwitchesToAFreshConnectionWithoutAGap() async throws {
        try await withStream(.binance) { h in
            try await h.waitLive()
            h.server.push(#"{"e":"serverShutdown","E":1728972148778}"#, to: 1)
            try await h.server.waitUntil("the replacement subscribed") { $0.connections.count == 2 && !$0.connections[1].texts.isEmpty }
            // Once the replacement is acknowledged, the client closes the old connection itself.
            try await h.server.waitUntil("the old connection closed by the client") { $0.connections[0].received.contains(.close(1000)) }
            #expect(h.server.connections[1].isOpen)
            h.server.push(#"{"u":5,"s":"BNBUSDT","b":"26.0","B":"1","a":"26.1","A":"1"}"#, to: 2)
            try await h.waitFor("a quote from the new connection") { $0.latest("BNBUSDT")?.bid?.exact == Decimal(string: "26.0") }
            #expect(h.downs.isEmpty)
            #expect(h.lives == 1)
        }
    }
}
