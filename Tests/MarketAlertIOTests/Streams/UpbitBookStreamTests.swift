import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// Upbit's order books for `basis: depth` (real frames recorded by cryptofeed): each push is a full snapshot
/// of the units asked for (1, 5, 15 or 30); the market's book and best bid/ask follow it, and a malformed
/// unit leaves no usable book.
@Suite struct UpbitBookStreamTests {
    let pair = MarketPair(base: "LAMB", quote: "KRW")

    func frames() throws -> [String] {
        try Fixtures.string("streams/upbit/orderbook-SIMPLE-20210417-cryptofeed.jsonl").split(separator: "\n").map(String.init)
    }

    func decode(_ text: String, table: inout StreamMarketTable, stream: UpbitStream) -> StreamFrame {
        table.beginFrame()
        return Array(text.utf8).withUnsafeBytes { stream.decode($0, into: &table, receivedAt: Date(timeIntervalSince1970: 0)) }
    }

    @Test func booksAskForTheSmallestSupportedUnitCount() throws {
        let stream = try #require(UpbitStream(ticket: "t").keepingBooks(levels: 20))
        let message = try #require(stream.subscription(for: ["KRW-BTC"]).messages.first)
        #expect(message.contains("\"KRW-BTC.30\""))
        #expect(try #require(UpbitStream(ticket: "t").keepingBooks(levels: 5)).subscription(for: ["KRW-BTC"]).messages[0].contains("\"KRW-BTC.5\""))
        // Without books, the best level only, as before.
        #expect(UpbitStream(ticket: "t").subscription(for: ["KRW-BTC"]).messages[0].contains("\"KRW-BTC.1\""))
    }

    @Test func aRecordedPushBecomesTheWholeBook() throws {
        let stream = try #require(UpbitStream(ticket: "t").keepingBooks(levels: 15))
        var table = StreamMarketTable(pairs: [pair], marketID: stream.marketID, depthLevels: 15)
        let first = try #require(try frames().first)
        #expect(decode(first, table: &table, stream: stream) == .data)
        let book = try #require(table.book(0))
        #expect(book.isSynced)
        #expect(book.asks.prices.prefix(3) == [127, 128, 129])
        #expect(book.bids.prices.prefix(3) == [126, 125, 124])
        #expect(book.asks.count == 15 && book.bids.count == 15)
        #expect(abs(book.asks.sizes[0] - 280460.37885666) < 1e-6)
        #expect(book.at == Date(timeIntervalSince1970: 1618678262.640))
        let quote = table.quote(0, exchange: .upbit, receivedAt: Date(timeIntervalSince1970: 0))
        #expect(quote.bid?.value == 126 && quote.ask?.value == 127)
        #expect(quote.depth?.asks.count == 15)
    }

    @Test func everyRecordedPushReplacesTheLast() throws {
        let stream = try #require(UpbitStream(ticket: "t").keepingBooks(levels: 15))
        var table = StreamMarketTable(pairs: [pair, MarketPair(base: "WAVES", quote: "KRW")], marketID: stream.marketID, depthLevels: 15)
        var data = 0
        for frame in try frames() where decode(frame, table: &table, stream: stream) == .data { data += 1 }
        #expect(data == 10)
        for index in table.entries.indices {
            let book = try #require(table.book(index))
            #expect(book.isSynced)
            #expect(book.asks.count <= 30 && book.bids.count <= 30)  // never more than twice the levels kept
            #expect((book.bids.best?.price ?? 0) < (book.asks.best?.price ?? 0))
        }
    }

    @Test func aMalformedUnitLeavesNoUsableBook() throws {
        let stream = try #require(UpbitStream(ticket: "t").keepingBooks(levels: 15))
        var table = StreamMarketTable(pairs: [pair], marketID: stream.marketID, depthLevels: 15)
        let good = try #require(try frames().first)
        _ = decode(good, table: &table, stream: stream)
        let bad = #"{"ty":"orderbook","cd":"KRW-LAMB","tms":1618678263000,"obu":[{"ap":"abc","bp":126.0,"as":1.0,"bs":1.0}]}"#
        #expect(decode(bad, table: &table, stream: stream) != .data)
        #expect(table.book(0)?.isSynced == false)
        let crossed = #"{"ty":"orderbook","cd":"KRW-LAMB","tms":1618678263000,"obu":[{"ap":120.0,"bp":126.0,"as":1.0,"bs":1.0}]}"#
        #expect(decode(crossed, table: &table, stream: stream) == .dropped(.crossedBook))
        #expect(table.book(0)?.isSynced == false)
        // The next good push is a snapshot: the book is usable again.
        #expect(decode(good, table: &table, stream: stream) == .data)
        #expect(table.book(0)?.isSynced == true)
    }
}
