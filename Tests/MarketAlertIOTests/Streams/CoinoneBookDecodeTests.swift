import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// v3 books of Coinone: `ORDERBOOK` beside `TICKER`, every push the whole book, ordered by `id`; decoded from
/// the push ccxt's developers recorded and from pushes in the docs' shape.
@Suite struct CoinoneBookDecodeTests {
    @Test func coinoneSubscribesOrderbookBesideTheTickerAndEachPushIsTheWholeBook() throws {
        let stream = try #require(CoinoneStream().keepingBooks(levels: 20))
        let plan = stream.subscription(for: ["BTC"])
        #expect(plan.messages == [
            #"{"request_type":"SUBSCRIBE","channel":"TICKER","topic":{"quote_currency":"KRW","target_currency":"BTC"}}"#,
            #"{"request_type":"SUBSCRIBE","channel":"ORDERBOOK","topic":{"quote_currency":"KRW","target_currency":"BTC"}}"#,
        ])
        #expect(plan.acks == ["TICKER:BTC", "ORDERBOOK:BTC"])
        #expect(CoinoneStream().subscription(for: ["BTC"]).acks == ["TICKER:BTC"])
        var table = StreamMarketTable(pairs: [MarketPair(base: "BTC", quote: "KRW")], marketID: stream.marketID, depthLevels: 20)
        let ack = #"{"response_type":"SUBSCRIBED","channel":"ORDERBOOK","data":{"quote_currency":"KRW","target_currency":"BTC"}}"#
        #expect(GateKuCoinBookDecodeTests.decode(ack, stream, &table) == .acked(keys: ["ORDERBOOK:BTC"], complete: false))

        let recorded = try #require(try GateKuCoinBookDecodeTests.lines("streams/coinone/orderbook-KRW-BTC-ccxtsrc.jsonl").first)
        #expect(GateKuCoinBookDecodeTests.decode(recorded, stream, &table) == .data)
        let book = try #require(table.book(0))
        #expect(book.isSynced && book.bids.prices == [58_292_000] && book.bids.sizes == [0.1045])
        #expect(book.asks.prices == [58_412_000] && book.asks.sizes == [0.59919807])
        #expect(book.at == Date(timeIntervalSince1970: 1_705_288_918.649))
        let quote = table.quote(0, exchange: .coinone, receivedAt: GateKuCoinBookDecodeTests.epoch)
        #expect(quote.bid?.value == 58_292_000 && quote.ask?.value == 58_412_000)
        // The same push again (an id not newer) is late.
        #expect(GateKuCoinBookDecodeTests.decode(recorded, stream, &table) == .dropped(.outOfOrder))
        // The ticker's best levels do not override the book's; its last price is taken.
        let ticker = try #require(try GateKuCoinBookDecodeTests.lines("streams/coinone/ticker-KRW-BTC-ccxtsrc.jsonl").first)
        #expect(GateKuCoinBookDecodeTests.decode(ticker, stream, &table) == .data)
        #expect(table.quote(0, exchange: .coinone, receivedAt: GateKuCoinBookDecodeTests.epoch).bid?.value == 58_292_000)
    }

    @Test func coinoneACrossedPushLeavesTheBookUnusableUntilTheNextOneAndTheDocsAskOrderIsRead() throws {
        let stream = try #require(CoinoneStream().keepingBooks(levels: 2))
        var table = StreamMarketTable(pairs: [MarketPair(base: "XRP", quote: "KRW")], marketID: stream.marketID, depthLevels: 2)
        func push(_ id: Int, asks: [(String, String)], bids: [(String, String)]) -> String {
            func side(_ levels: [(String, String)]) -> String { levels.map { #"{"price":"\#($0.0)","qty":"\#($0.1)"}"# }.joined(separator: ",") }
            return #"{"response_type":"DATA","channel":"ORDERBOOK","data":{"quote_currency":"KRW","target_currency":"XRP","timestamp":1693560155038,"id":"\#(id)","asks":[\#(side(asks))],"bids":[\#(side(bids))]}}"#
        }
        // The docs' example lists asks from the dearest down (695.5, 692.1, 690.9, …): read best first, and an
        // oversized book keeps twice the levels read.
        let asks = [("695.5", "5000"), ("692.1", "15000"), ("690.9", "118063.7475"), ("690.3", "148087.1739"), ("689.6", "68224.2457"), ("689.5", "186287.9931")]
        let bids = (0..<30).map { ("\(688 - $0)", "1") }
        #expect(GateKuCoinBookDecodeTests.decode(push(1_693_560_155_038_001, asks: asks, bids: bids), stream, &table) == .data)
        #expect(table.book(0)?.asks.prices == [689.5, 689.6, 690.3, 690.9])
        #expect(table.book(0)?.bids.prices == [688, 687, 686, 685])
        #expect(GateKuCoinBookDecodeTests.decode(push(1_693_560_155_038_002, asks: [("687", "1")], bids: [("688", "1")]), stream, &table) == .dropped(.crossedBook))
        #expect(table.book(0)?.isSynced == false)
        #expect(table.takeBookRequests().isEmpty)  // no resync: the next push is the whole book
        #expect(GateKuCoinBookDecodeTests.decode(push(1_693_560_155_038_003, asks: [("689", "1")], bids: [("688", "1")]), stream, &table) == .data)
        #expect(table.book(0)?.isSynced == true)
        #expect(GateKuCoinBookDecodeTests.decode(push(1_693_560_155_038_004, asks: [("x", "1")], bids: []), stream, &table) == .dropped(.invalidPrice))
        #expect(table.book(0)?.isSynced == false)
    }
}
