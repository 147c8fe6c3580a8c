import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// v3 books of the diff-stream exchanges, decoded from recorded frames: Binance `depth@100ms` on a REST
/// `/api/v3/depth` snapshot (cryptofeed's NKNUSDT capture, whose snapshot and diffs were taken together),
/// Bybit `orderbook.50` snapshot + delta (the docs' example), and Bithumb's full orderbook pushes.
@Suite struct DepthBookDecodeTests {
    static let nkn = MarketPair(base: "NKN", quote: "USDT")
    static let epoch = Date(timeIntervalSince1970: 1_633_998_512)

    static func lines(_ fixture: String) throws -> [String] {
        try Fixtures.string(fixture).split(separator: "\n").map(String.init)
    }

    static func decode(_ text: String, _ stream: some ExchangeStreamProtocol, _ table: inout StreamMarketTable) -> StreamFrame {
        table.beginFrame()
        return Array(text.utf8).withUnsafeBytes { stream.decode($0, into: &table, receivedAt: epoch) }
    }

    static func seed(_ text: String, _ stream: some ExchangeStreamProtocol, _ table: inout StreamMarketTable) -> Bool {
        table.beginFrame()
        return Array(text.utf8).withUnsafeBytes { stream.seedBook($0, at: 0, into: &table, receivedAt: epoch) }
    }

    /// A Binance diff frame (combined-stream shape, as recorded).
    static func diff(_ first: UInt64, _ final: UInt64, bids: String = "[]", asks: String = "[]") -> String {
        #"{"stream":"nknusdt@depth@100ms","data":{"e":"depthUpdate","E":1633998513000,"s":"NKNUSDT","U":\#(first),"u":\#(final),"b":\#(bids),"a":\#(asks)}}"#
    }

    // MARK: Binance

    @Test func binanceSubscribesToDepthDiffsAndFetchesItsSnapshotOverREST() throws {
        let stream = try #require(BinanceStream().keepingBooks(levels: 20))
        let message = try #require(stream.subscription(for: ["NKNUSDT"]).messages.first)
        #expect(message.contains(#""nknusdt@depth@100ms""#) && message.contains(#""nknusdt@ticker""#) && !message.contains("bookTicker"))
        guard case .restSnapshot(let path) = stream.bookResync else {
            Issue.record("Binance rebuilds books from REST")
            return
        }
        #expect(path("NKNUSDT") == "/api/v3/depth?symbol=NKNUSDT&limit=100")
        // Without books, nothing changes.
        #expect(BinanceStream().subscription(for: ["NKNUSDT"]).messages[0].contains("nknusdt@bookTicker"))
        guard case .reconnect = UpbitStream().bookResync, case .reconnect = BithumbStream().bookResync else {
            Issue.record("the default resync is a replacement connection")
            return
        }
    }

    /// The recorded diffs arrive before the snapshot: they are buffered and one snapshot is asked for; the
    /// snapshot (1,000 asks and 609 bids, far more than the 40 levels kept) seeds the book and the buffered
    /// diffs are applied by Binance's rule (the first, `u` = lastUpdateId, is dropped; the second straddles).
    @Test func binanceRecordedDiffsWaitForTheSnapshotThenApply() throws {
        let stream = try #require(BinanceStream().keepingBooks(levels: 20))
        var table = StreamMarketTable(pairs: [Self.nkn], marketID: stream.marketID, depthLevels: 20)
        let diffs = try Self.lines("streams/binance/depth100ms-NKNUSDT-20211012-cryptofeed.jsonl")
        for diff in diffs { #expect(Self.decode(diff, stream, &table) == .ignored) }
        #expect(table.takeBookRequests() == [BookSnapshotRequest(index: 0, market: "NKNUSDT", reason: nil)])
        #expect(table.takeBookRequests().isEmpty)  // asked once
        #expect(table.book(0)?.isSynced == false)

        let snapshot = try Fixtures.string("streams/binance/depth-snapshot-NKNUSDT-20211012-cryptofeed.json")
        #expect(Self.seed(snapshot, stream, &table))
        let book = try #require(table.book(0))
        #expect(book.isSynced)
        #expect(book.bids.prices.prefix(3) == [0.3521, 0.352, 0.3519])
        #expect(book.bids.sizes.prefix(3) == [42, 1920, 3260])
        #expect(book.asks.prices.prefix(3) == [0.3525, 0.3526, 0.3527])
        #expect(book.asks.sizes.prefix(3) == [1123, 3199, 4201])
        #expect(book.bids.count <= 40 && book.asks.count <= 40 && book.asks.count >= 30)
        #expect(table.entries[0].bookSequence.last == 499_869_812)
        let quote = table.quote(0, exchange: .binance, receivedAt: Self.epoch)
        #expect(quote.bid?.value == 0.3521 && quote.ask?.value == 0.3525)
    }

    @Test func binanceGapThrowsTheBookAwayAndAFreshSnapshotRebuildsIt() throws {
        let stream = try #require(BinanceStream().keepingBooks(levels: 20))
        var table = StreamMarketTable(pairs: [Self.nkn], marketID: stream.marketID, depthLevels: 20)
        let snapshot = try Fixtures.string("streams/binance/depth-snapshot-NKNUSDT-20211012-cryptofeed.json")
        for diff in try Self.lines("streams/binance/depth100ms-NKNUSDT-20211012-cryptofeed.jsonl") { _ = Self.decode(diff, stream, &table) }
        _ = table.takeBookRequests()
        #expect(Self.seed(snapshot, stream, &table))

        // A duplicate and an older diff are dropped; the book stays as it was.
        let before = try #require(table.book(0))
        #expect(Self.decode(Self.diff(499_869_812, 499_869_812, bids: #"[["0.35220000","1"]]"#), stream, &table) == .dropped(.outOfOrder))
        #expect(Self.decode(Self.diff(499_869_800, 499_869_802), stream, &table) == .dropped(.outOfOrder))
        #expect(table.book(0) == before)

        // 499869813 is lost: the next diff is a gap.
        #expect(Self.decode(Self.diff(499_869_814, 499_869_815, bids: #"[["0.35220000","7"]]"#), stream, &table) == .data)
        #expect(table.book(0)?.isSynced == false)
        #expect(table.touched == [0])  // the engine hears that the book is gone
        #expect(table.takeBookRequests() == [BookSnapshotRequest(index: 0, market: "NKNUSDT", reason: .sequenceGap)])
        #expect(table.quote(0, exchange: .binance, receivedAt: Self.epoch).depth?.isSynced == false)

        // A later diff waits with the gap's for the fresh snapshot, taken at 499869814.
        #expect(Self.decode(Self.diff(499_869_816, 499_869_816, asks: #"[["0.35250000","0"]]"#), stream, &table) == .ignored)
        let fresh = snapshot.replacingOccurrences(of: #""lastUpdateId":499869752"#, with: #""lastUpdateId":499869814"#)
        #expect(Self.seed(fresh, stream, &table))
        let book = try #require(table.book(0))
        #expect(book.isSynced)
        #expect(book.bids.best?.price == 0.3522 && book.bids.best?.size == 7)  // the straddling diff
        #expect(book.asks.best?.price == 0.3526)  // the recorded snapshot's 0.3525 removed by the last diff
        #expect(table.entries[0].bookSequence.last == 499_869_816)
        // Usable again: the next diff in order applies.
        #expect(Self.decode(Self.diff(499_869_817, 499_869_817, asks: #"[["0.35255000","5"]]"#), stream, &table) == .data)
        #expect(table.book(0)?.asks.best?.price == 0.35255)
    }

    /// Changes lost between two connections are the reconnect's: counted as `reconnect`, not `sequence_gap`.
    @Test func binanceAGapAfterAReconnectIsTheReconnects() throws {
        let stream = try #require(BinanceStream().keepingBooks(levels: 20))
        var table = StreamMarketTable(pairs: [Self.nkn], marketID: stream.marketID, depthLevels: 20)
        table.connection = 1
        for diff in try Self.lines("streams/binance/depth100ms-NKNUSDT-20211012-cryptofeed.jsonl") { _ = Self.decode(diff, stream, &table) }
        _ = table.takeBookRequests()
        #expect(Self.seed(try Fixtures.string("streams/binance/depth-snapshot-NKNUSDT-20211012-cryptofeed.json"), stream, &table))
        #expect(Self.decode(Self.diff(499_869_813, 499_869_813), stream, &table) == .data)
        table.connection = 2
        #expect(Self.decode(Self.diff(499_869_820, 499_869_821), stream, &table) == .data)
        #expect(table.takeBookRequests().map(\.reason) == [.reconnect])
    }

    @Test func binanceASnapshotThatIsNotOneSeedsNothing() throws {
        let stream = try #require(BinanceStream().keepingBooks(levels: 20))
        var table = StreamMarketTable(pairs: [Self.nkn], marketID: stream.marketID, depthLevels: 20)
        #expect(!Self.seed(#"{"code":-1121,"msg":"Invalid symbol."}"#, stream, &table))
        #expect(!Self.seed(#"{"lastUpdateId":5,"bids":[["abc","1"]],"asks":[]}"#, stream, &table))
        #expect(!Self.seed(#"{"lastUpdateId":5,"bids":[["2","1"]],"asks":[["1","1"]]}"#, stream, &table))  // crossed
        #expect(table.book(0)?.isSynced == false)
    }

    // MARK: Bybit

    @Test func bybitBooksSubscribeToDepth50AndResubscribeOnAGap() throws {
        let stream = try #require(BybitStream().keepingBooks(levels: 20))
        let message = try #require(stream.subscription(for: ["BTCUSDT"]).messages.first)
        #expect(message.contains(#""orderbook.50.BTCUSDT""#) && message.contains(#""tickers.BTCUSDT""#))
        #expect(try #require(BybitStream().keepingBooks(levels: 40)).subscription(for: ["BTCUSDT"]).messages[0].contains("orderbook.200.BTCUSDT"))
        #expect(BybitStream().subscription(for: ["BTCUSDT"]).messages[0].contains("orderbook.1.BTCUSDT"))
        guard case .resubscribe(let messages) = stream.bookResync else {
            Issue.record("Bybit asks for the book again on its connection")
            return
        }
        #expect(messages("BTCUSDT") == [
            #"{"req_id":"unsub-BTCUSDT","op":"unsubscribe","args":["orderbook.50.BTCUSDT"]}"#,
            #"{"req_id":"resync-BTCUSDT","op":"subscribe","args":["orderbook.50.BTCUSDT"]}"#,
        ])
    }

    @Test func bybitSnapshotThenDeltasThenAGapThenAFreshSnapshot() throws {
        let stream = try #require(BybitStream().keepingBooks(levels: 20))
        var table = StreamMarketTable(pairs: [MarketPair(base: "BTC", quote: "USDT")], marketID: stream.marketID, depthLevels: 20)
        let frames = try Self.lines("streams/bybit/orderbook50-BTCUSDT-docs.jsonl")
        // A delta before any snapshot is not applied.
        #expect(Self.decode(frames[1], stream, &table) == .ignored)
        #expect(Self.decode(frames[0], stream, &table) == .data)
        #expect(table.book(0)?.isSynced == true)
        #expect(table.book(0)?.bids.prices == [17440, 17439.5, 17416, 17415.5])
        #expect(table.book(0)?.at == Date(timeIntervalSince1970: 1_671_179_923.028))
        #expect(Self.decode(frames[1], stream, &table) == .data)
        #expect(table.book(0)?.asks.prices == [17440.5, 17441, 17442, 17464.5, 17465])
        #expect(table.book(0)?.asks.sizes.first == 78.857)
        // The same delta again, out of order.
        #expect(Self.decode(frames[1], stream, &table) == .dropped(.outOfOrder))
        // u 13079594 lost.
        let skipped = frames[1].replacingOccurrences(of: #""u":13079593"#, with: #""u":13079595"#)
        #expect(Self.decode(skipped, stream, &table) == .data)
        #expect(table.book(0)?.isSynced == false)
        #expect(table.takeBookRequests().map(\.reason) == [.sequenceGap])
        // The resubscription's snapshot (here Bybit's u = 1 restart snapshot) makes it usable again.
        let restart = frames[0].replacingOccurrences(of: #""u":13079592"#, with: #""u":1"#)
        #expect(Self.decode(restart, stream, &table) == .data)
        #expect(table.book(0)?.isSynced == true)
        let next = frames[1].replacingOccurrences(of: #""u":13079593"#, with: #""u":2"#)
        #expect(Self.decode(next, stream, &table) == .data)
        #expect(table.book(0)?.isSynced == true)
        let quote = table.quote(0, exchange: .bybit, receivedAt: Self.epoch)
        #expect(quote.bid?.value == 17440 && quote.ask?.value == 17440.5)
    }

    @Test func bybitAnOversizedSnapshotKeepsTwiceTheLevelsRead() throws {
        let stream = try #require(BybitStream().keepingBooks(levels: 2))
        var table = StreamMarketTable(pairs: [MarketPair(base: "BTC", quote: "USDT")], marketID: stream.marketID, depthLevels: 2)
        let bids = (0..<50).map { #"["\#(1000 - $0)","1"]"# }.joined(separator: ",")
        let asks = (0..<50).map { #"["\#(1001 + $0)","1"]"# }.joined(separator: ",")
        let frame = #"{"topic":"orderbook.50.BTCUSDT","type":"snapshot","ts":1671179923028,"data":{"s":"BTCUSDT","b":[\#(bids)],"a":[\#(asks)],"u":7,"seq":1}}"#
        #expect(Self.decode(frame, stream, &table) == .data)
        #expect(table.book(0)?.bids.prices == [1000, 999, 998, 997])
        #expect(table.book(0)?.asks.prices == [1001, 1002, 1003, 1004])
    }

    // MARK: Bithumb

    @Test func bithumbBooksAreFullPushesOfTheUnitsAskedFor() throws {
        let stream = try #require(BithumbStream(ticket: "t").keepingBooks(levels: 20))
        #expect(stream.subscription(for: ["KRW-BTC"]).messages[0].contains(#""KRW-BTC.30""#))
        #expect(try #require(BithumbStream(ticket: "t").keepingBooks(levels: 5)).subscription(for: ["KRW-BTC"]).messages[0].contains(#""KRW-BTC.5""#))
        #expect(BithumbStream(ticket: "t").subscription(for: ["KRW-BTC"]).messages[0].contains(#""KRW-BTC.1""#))
        var table = StreamMarketTable(pairs: [MarketPair(base: "BTC", quote: "KRW")], marketID: stream.marketID, depthLevels: 20)
        let frame = try #require(try Self.lines("streams/bithumb/orderbook-DEFAULT-constructed.jsonl").first)
        #expect(Self.decode(frame, stream, &table) == .data)
        let book = try #require(table.book(0))
        #expect(book.isSynced && book.bids.prices == [493100] && book.asks.prices == [493200])
        // Two units, one of them crossed: refused until the next push.
        let crossed = #"{"type":"orderbook","code":"KRW-BTC","orderbook_units":[{"ask_price":493000,"bid_price":493100,"ask_size":0.5,"bid_size":0.7}],"timestamp":1725927377400}"#
        #expect(Self.decode(crossed, stream, &table) == .dropped(.crossedBook))
        #expect(table.book(0)?.isSynced == false)
        #expect(Self.decode(frame, stream, &table) == .data)
        #expect(table.book(0)?.isSynced == true)
    }
}
