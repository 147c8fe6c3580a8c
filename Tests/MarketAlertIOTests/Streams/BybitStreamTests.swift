import Foundation
import MarketAlertCore
import MarketAlertIO
import Testing

/// Bybit specifics: requests of at most 10 topics, and the depth-1 book deltas.
@Suite struct BybitStreamTests {
    let stream = BybitStream()

    @Test func subscribesInRequestsOfTenTopics() {
        let plan = stream.subscription(for: ["AUSDT", "BUSDT", "CUSDT", "DUSDT", "EUSDT", "FUSDT"])
        #expect(plan.messages.count == 2)
        // Each request is named after its first market (a request sent again never shares a pending id).
        #expect(plan.acks == ["req:sub-AUSDT", "req:sub-FUSDT"])
        #expect(plan.parts == [["AUSDT", "BUSDT", "CUSDT", "DUSDT", "EUSDT"], ["FUSDT"]])
        #expect(plan.refusesWholeMessage)
        #expect(plan.messages[0].hasPrefix(#"{"req_id":"sub-AUSDT","op":"subscribe","args":["orderbook.1.AUSDT","tickers.AUSDT","#))
    }

    @Test func bookDeltasKeepOrEmptyASide() {
        var table = StreamMarketTable(pairs: [MarketPair(base: "BTC", quote: "USDT")], marketID: stream.marketID)
        func push(_ text: String) -> StreamFrame {
            table.beginFrame()
            return Array(text.utf8).withUnsafeBytes { stream.decode($0, into: &table, receivedAt: Date()) }
        }
        #expect(push(#"{"topic":"orderbook.1.BTCUSDT","type":"snapshot","ts":1,"data":{"s":"BTCUSDT","b":[["100","1"]],"a":[["101","1"]],"u":1,"seq":1}}"#) == .data)
        // An empty ask list in a delta: the ask stays; a new bid level replaces the old.
        #expect(push(#"{"topic":"orderbook.1.BTCUSDT","type":"delta","ts":2,"data":{"s":"BTCUSDT","b":[["100.5","2"],["100","0"]],"a":[],"u":2,"seq":2}}"#) == .data)
        #expect(table.entries[0].bid?.exact == Decimal(string: "100.5"))
        #expect(table.entries[0].ask?.exact == Decimal(string: "101"))
        // The only ask level removed: the ask is unknown now, not the old one.
        #expect(push(#"{"topic":"orderbook.1.BTCUSDT","type":"delta","ts":3,"data":{"s":"BTCUSDT","b":[],"a":[["101","0"]],"u":3,"seq":3}}"#) == .data)
        #expect(table.entries[0].ask == nil)
        #expect(table.entries[0].bid?.exact == Decimal(string: "100.5"))
        // A one-sided delta that would cross the other side is dropped.
        #expect(push(#"{"topic":"orderbook.1.BTCUSDT","type":"delta","ts":4,"data":{"s":"BTCUSDT","b":[],"a":[["102","1"]],"u":4,"seq":4}}"#) == .data)
        #expect(push(#"{"topic":"orderbook.1.BTCUSDT","type":"delta","ts":5,"data":{"s":"BTCUSDT","b":[["103","1"]],"a":[],"u":5,"seq":5}}"#) == .dropped(.crossedBook))
        #expect(table.entries[0].bid?.exact == Decimal(string: "100.5"))
        // Pongs and acks.
        #expect(push(#"{"success":true,"ret_msg":"pong","conn_id":"x","op":"ping"}"#) == .heartbeat)
        #expect(push(#"{"op":"pong","args":["1672916271846"],"conn_id":"x"}"#) == .heartbeat)
        #expect(push(#"{"success":true,"ret_msg":"subscribe","conn_id":"x","req_id":"sub-1","op":"subscribe"}"#) == .acked(keys: ["req:sub-1"], complete: false))
        #expect(push(#"{"success":false,"ret_msg":"Invalid symbol :[tickers.XUSDT]","conn_id":"x","req_id":"sub-1","op":"subscribe"}"#) 
            == .rejected(reason: "Invalid symbol :[tickers.XUSDT]", markets: ["Invalid", "symbol", "tickers", "XUSDT"]))
    }
}
