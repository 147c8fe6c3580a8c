import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// The quick read of flat ticker lists (`FlatTickerList`) must take the recorded answers (or the polling
/// daemon pays for `Codable` again), agree with the careful path (prune, then `Decodable`) on every answer it
/// takes, and hand every surprise to the careful path untouched.
@Suite struct FlatTickerListTests {
    static let at = Date(timeIntervalSince1970: 1_700_000_000)

    /// The recorded lists each exchange's quick read must take, with markets in them.
    static let recorded: [(name: String, list: FlatTickerList, exchange: ExchangeID, path: String, watched: [String])] = [
        ("binance 24hr", BinanceTickerSource.flatList, .binance, "binance/ticker-24hr-all-20240310.json", ["BTCUSDT", "ETHUSDT", "ETHBTC"]),
        ("binance price", BinanceTickerSource.flatList, .binance, "binance/ticker-price-all-20230112.json", ["ETHBTC", "LTCBTC"]),
        ("bybit", BybitTickerSource.flatList, .bybit, "bybit/tickers-spot.json", ["BTCUSDT"]),
        ("okx", OKXTickerSource.flatList, .okx, "okx/market-tickers-SPOT-ccxtsrc.json", ["BCD-BTC"]),
        ("bitget", BitgetTickerSource.flatList, .bitget, "bitget/spot-market-tickers-BTCUSDT-ccxtsrc.json", ["BTCUSDT"]),
        ("upbit", UpbitStyleTicker.flatList, .upbit, "upbit/ticker-KRW-BTC-ETH.json", ["KRW-BTC", "KRW-ETH"]),
    ]

    static func collector(_ exchange: ExchangeID, _ markets: [String]) -> QuoteCollector {
        QuoteCollector(
            exchange: exchange, receivedAt: at,
            watched: Dictionary(uniqueKeysWithValues: markets.map { ($0, MarketPair(base: $0, quote: "X")) }))
    }

    @Test func theRecordedListsAreReadQuicklyAndAsTheCarefulPathReadsThem() throws {
        for entry in Self.recorded {
            let body = try Fixtures.data(entry.path)
            var quick = Self.collector(entry.exchange, entry.watched)
            #expect(entry.list.collect(body, into: &quick), "\(entry.name): the quick read refused a recorded answer")
            let quotes = try quick.finish()
            #expect(quotes.count == entry.watched.count, "\(entry.name)")
            #expect(quotes == (try Self.careful(entry.exchange, body, entry.watched)), "\(entry.name)")
        }
    }

    /// The careful path of each exchange, as its `decode` ran it before the quick read existed.
    static func careful(_ exchange: ExchangeID, _ body: Data, _ markets: [String]) throws -> [Quote] {
        var collector = collector(exchange, markets)
        switch exchange {
        case .binance:
            let pruned = try JSONListPruner.prune(body, listPath: [], keyField: "symbol", keep: collector.isWatched)
            let rows = try JSONDecoder().decode([BinanceTickerSource.Ticker].self, from: pruned.document)
            collector.listCount = pruned.elementCount ?? rows.count
            for row in rows {
                collector.add(market: row.symbol, last: row.lastPrice ?? row.price, bid: row.bidPrice, ask: row.askPrice, exchangeTime: row.closeTime?.date)
            }
        case .bybit:
            let envelope = try JSONDecoder().decode(BybitTickerSource.Envelope.self, from: body)
            let list = envelope.result?.list ?? []
            collector.listCount = list.count
            for row in list {
                collector.add(market: row.symbol, last: row.lastPrice, bid: row.bid1Price, ask: row.ask1Price, exchangeTime: envelope.time?.date)
            }
        case .okx:
            for row in try OKXTickerSource.envelope.watchedRows(OKXTickerSource.Ticker.self, in: body, collector: &collector) {
                collector.add(market: row.instId, last: row.last, bid: row.bidPx, ask: row.askPx, exchangeTime: row.ts?.date)
            }
        case .bitget:
            for row in try BitgetTickerSource.envelope.watchedRows(BitgetTickerSource.Ticker.self, in: body, collector: &collector) {
                collector.add(market: row.symbol, last: row.lastPr, bid: row.bidPr, ask: row.askPr, exchangeTime: row.ts?.date)
            }
        default:
            UpbitStyleTicker.add(try JSONDecoder().decode([UpbitStyleTicker].self, from: body), to: &collector)
        }
        return try collector.finish()
    }

    /// Answers the quick read must leave to the careful path, which names what is wrong in each.
    static let refused: [(why: String, body: String)] = [
        ("an error code", #"{"code":"40034","msg":"Parameter does not exist","data":[{"symbol":"BTCUSDT","lastPr":"1"}]}"#),
        ("no code", #"{"msg":"","data":[{"symbol":"BTCUSDT","lastPr":"1"}]}"#),
        ("no list", #"{"code":"00000","msg":"","data":null}"#),
        ("a row that is not an object", #"{"code":"00000","data":[["BTCUSDT","1"]]}"#),
        ("a row without its market", #"{"code":"00000","data":[{"lastPr":"1"}]}"#),
        ("a market that is a number", #"{"code":"00000","data":[{"symbol":7,"lastPr":"1"}]}"#),
        ("a market spelled with escapes", #"{"code":"00000","data":[{"symbol":"BTC\u0055SDT","lastPr":"1"}]}"#),
        ("a repeated field", #"{"code":"00000","data":[{"symbol":"BTCUSDT","lastPr":"1","lastPr":"2"}]}"#),
        ("a zero price", #"{"code":"00000","data":[{"symbol":"BTCUSDT","lastPr":"0"}]}"#),
        ("a price that is text", #"{"code":"00000","data":[{"symbol":"BTCUSDT","lastPr":"abc"}]}"#),
        ("a price that is an object", #"{"code":"00000","data":[{"symbol":"BTCUSDT","lastPr":{"v":"1"}}]}"#),
        ("a fractional time", #"{"code":"00000","data":[{"symbol":"BTCUSDT","lastPr":"1","ts":"17.5"}]}"#),
        ("a zero time", #"{"code":"00000","data":[{"symbol":"BTCUSDT","lastPr":"1","ts":0}]}"#),
        ("truncated", #"{"code":"00000","data":[{"symbol":"BTCUSDT","lastPr":"1"}"#),
        ("trailing bytes", #"{"code":"00000","data":[{"symbol":"BTCUSDT","lastPr":"1"}]} x"#),
        ("an HTML page", "<html><body>502 Bad Gateway</body></html>"),
    ]

    @Test func everySurpriseIsLeftToTheCarefulPathWithTheCollectorUntouched() {
        for entry in Self.refused {
            var collector = Self.collector(.bitget, ["BTCUSDT"])
            #expect(!BitgetTickerSource.flatList.collect(Data(entry.body.utf8), into: &collector), "\(entry.why)")
            #expect(collector.listCount == 0, "\(entry.why)")
        }
    }

    @Test func surprisesInUnwatchedRowsOnlyStillReadQuickly() throws {
        // Prices of markets nobody watches are never read (as the pruner never kept them).
        let body = #"{"code":"00000","data":[{"symbol":"XUSDT","lastPr":"abc"},{"symbol":"BTCUSDT","lastPr":"5","bidPr":null,"ts":"1700000000123"}]}"#
        var collector = Self.collector(.bitget, ["BTCUSDT"])
        #expect(BitgetTickerSource.flatList.collect(Data(body.utf8), into: &collector))
        let quotes = try collector.finish()
        #expect(quotes.map(\.last?.value) == [5])
        #expect(quotes.map(\.bid) == [nil])
        #expect(quotes.map(\.exchangeTime) == [Date(timeIntervalSince1970: 1_700_000_000.123)])
        #expect(collector.listCount == 2)
    }

    @Test func theQuickAndCarefulPathsAgreeOnRandomPrices() throws {
        // Prices and times from a pool of good, odd and bad values: whenever the quick read takes an answer,
        // its quotes are the careful path's.
        let values = [#""67123.45""#, #""1.4E-7""#, "67123.45", "0.5", "null"]
        let badValues = [#""0""#, #""-1""#, #""""#, #""NaN""#, "1e30", "true", #"{"a":1}"#]
        let times = [#""1700000000123""#, "1700000000123", "null"]
        let badTimes = ["0", #""x""#, "1.5"]
        var generator = SeededRandom(state: 20_261_127)
        var taken = 0
        for _ in 0..<400 {
            func pick(_ good: [String], _ bad: [String]) -> String {
                let pool = generator.next() % 8 == 0 ? bad : good  // one value in eight is odd or bad
                return pool[Int(generator.next() % UInt64(pool.count))]
            }
            let rows = ["BTCUSDT", "ETHUSDT", "LTCUSDT"].map { symbol in
                #"{"symbol":"\#(symbol)","lastPr":\#(pick(values, badValues)),"bidPr":\#(pick(values, badValues)),"askPr":\#(pick(values, badValues)),"ts":\#(pick(times, badTimes))}"#
            }
            let body = Data(#"{"code":"00000","msg":"","data":[\#(rows.joined(separator: ","))]}"#.utf8)
            var quick = Self.collector(.bitget, ["BTCUSDT", "ETHUSDT"])
            guard BitgetTickerSource.flatList.collect(body, into: &quick) else { continue }
            taken += 1
            let careful = Result { try Self.careful(.bitget, body, ["BTCUSDT", "ETHUSDT"]) }
            switch (Result { try quick.finish() }, careful) {
            case (.success(let a), .success(let b)): #expect(a == b, "\(String(decoding: body, as: UTF8.self))")
            case (.failure(let a), .failure(let b)): #expect("\(a)" == "\(b)", "\(String(decoding: body, as: UTF8.self))")
            default: Issue.record("the paths disagree on \(String(decoding: body, as: UTF8.self))")
            }
        }
        #expect(taken > 20)
    }
}
