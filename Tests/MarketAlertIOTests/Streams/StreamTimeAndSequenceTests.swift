import Foundation
import MarketAlertCore
import MarketAlertIO
import Testing

/// Each exchange's frame time in its own unit, and updates whose sequence is not newer dropped.
@Suite struct StreamTimeAndSequenceTests {
    static func decode(
        _ stream: some ExchangeStreamProtocol, _ frames: [String], pairs: Set<MarketPair>
    ) -> (frames: [StreamFrame], table: StreamMarketTable) {
        var table = StreamMarketTable(pairs: pairs, marketID: stream.marketID)
        var results: [StreamFrame] = []
        for text in frames {
            table.beginFrame()
            results.append(Array(text.utf8).withUnsafeBytes { stream.decode($0, into: &table, receivedAt: Date(timeIntervalSince1970: 0)) })
        }
        return (results, table)
    }

    static let krwBTC: Set<MarketPair> = [MarketPair(base: "BTC", quote: "KRW")]

    @Test func bithumbOrderbookMicrosecondsAndTickerMilliseconds() throws {
        let stream = BithumbStream(ticket: "t")
        let book = #"{"type":"orderbook","code":"KRW-BTC","orderbook_units":[{"ask_price":493200,"bid_price":493100,"ask_size":0.5,"bid_size":0.7}],"timestamp":1725927377300123,"stream_type":"REALTIME"}"#
        let (frames, table) = Self.decode(stream, [book], pairs: Self.krwBTC)
        #expect(frames == [.data])
        let time = try #require(table.entries[0].exchangeTime)
        #expect(abs(time.timeIntervalSince1970 - 1_725_927_377.300123) < 0.000_01)
        // The documented example (milliseconds) still reads as milliseconds.
        let ticker = #"{"type":"ticker","code":"KRW-BTC","trade_price":493100,"timestamp":1725927377287}"#
        let (_, tickerTable) = Self.decode(stream, [ticker], pairs: Self.krwBTC)
        #expect(tickerTable.entries[0].exchangeTime == Date(timeIntervalSince1970: 1_725_927_377.287))
    }

    @Test func upbitTimesAreMilliseconds() {
        let frame = #"{"ty":"orderbook","cd":"KRW-BTC","tms":1618678262640,"obu":[{"ap":127.0,"bp":126.0,"as":1,"bs":1}],"st":"REALTIME"}"#
        let (_, table) = Self.decode(UpbitStream(ticket: "t"), [frame], pairs: Self.krwBTC)
        #expect(table.entries[0].exchangeTime == Date(timeIntervalSince1970: 1_618_678_262.640))
    }

    @Test func binanceBookTickerWithADecreasingUpdateIDIsDropped() {
        let pairs: Set<MarketPair> = [MarketPair(base: "BTC", quote: "USDT")]
        let frames = [
            #"{"u":100,"s":"BTCUSDT","b":"60300.00","B":"1","a":"60300.10","A":"1"}"#,
            #"{"u":99,"s":"BTCUSDT","b":"60000.00","B":"1","a":"60000.10","A":"1"}"#,
            #"{"u":100,"s":"BTCUSDT","b":"60000.00","B":"1","a":"60000.10","A":"1"}"#,
            #"{"u":101,"s":"BTCUSDT","b":"60100.00","B":"1","a":"60100.10","A":"1"}"#,
        ]
        let (results, table) = Self.decode(BinanceStream(), frames, pairs: pairs)
        #expect(results == [.data, .dropped(.outOfOrder), .dropped(.outOfOrder), .data])
        #expect(table.entries[0].bid?.exact == Decimal(string: "60100"))
    }

    @Test func bybitDeltasInOrderASnapshotStartsOver() {
        let pairs: Set<MarketPair> = [MarketPair(base: "BTC", quote: "USDT")]
        let frames = [
            #"{"topic":"orderbook.1.BTCUSDT","type":"snapshot","ts":1,"data":{"s":"BTCUSDT","b":[["100","1"]],"a":[["101","1"]],"u":50,"seq":1}}"#,
            #"{"topic":"orderbook.1.BTCUSDT","type":"delta","ts":2,"data":{"s":"BTCUSDT","b":[["99","1"]],"a":[],"u":49,"seq":2}}"#,
            #"{"topic":"orderbook.1.BTCUSDT","type":"snapshot","ts":3,"data":{"s":"BTCUSDT","b":[["98","1"]],"a":[["99","1"]],"u":1,"seq":3}}"#,
            #"{"topic":"orderbook.1.BTCUSDT","type":"delta","ts":4,"data":{"s":"BTCUSDT","b":[["98.5","1"]],"a":[],"u":2,"seq":4}}"#,
        ]
        let (results, table) = Self.decode(BybitStream(), frames, pairs: pairs)
        #expect(results == [.data, .dropped(.outOfOrder), .data, .data])
        #expect(table.entries[0].bid?.exact == Decimal(string: "98.5"))
    }

    @Test func coinbaseTickerSequencePerProduct() {
        let pairs: Set<MarketPair> = [MarketPair(base: "BTC", quote: "USD")]
        func ticker(_ sequence: Int, _ price: String) -> String {
            #"{"type":"ticker","sequence":\#(sequence),"product_id":"BTC-USD","price":"\#(price)","best_bid":"\#(price)","best_ask":"\#(price)1"}"#
        }
        let (results, table) = Self.decode(CoinbaseStream(), [ticker(10, "61000"), ticker(9, "60000"), ticker(11, "61100")], pairs: pairs)
        #expect(results == [.data, .dropped(.outOfOrder), .data])
        #expect(table.entries[0].last?.exact == Decimal(string: "61100"))
    }

    /// An exchange that restarts its numbering without a snapshot is followed after 100 stale ids in a row.
    @Test func aRestartedNumberingIsFollowedAfterABoundedRun() {
        var table = StreamMarketTable(pairs: [MarketPair(base: "BTC", quote: "USDT")]) { "\($0.base)\($0.quote)" }
        var admitted: [Bool] = [table.admitSequence(1_000, at: 0)]
        for id in 1...101 { admitted.append(table.admitSequence(Int64(id), at: 0)) }
        // 1,000 held; ids 1…99 refused (99 in a row); the 100th stale one is taken as the new numbering.
        #expect(admitted[0])
        #expect(admitted[1...99].allSatisfy { !$0 })
        #expect(admitted[100] && admitted[101])
    }
}
