import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// v3 books of Gate (`spot.order_book_update` diffs on a REST `/api/v4/spot/order_book?with_id=true`
/// snapshot) and KuCoin (`/market/level2` diffs on a REST `level2_100` snapshot), decoded from recorded frames
/// (Coinone's: `CoinoneBookDecodeTests`): cryptofeed's Gate and KuCoin captures took their
/// snapshot while the diffs arrived, so the recorded diffs straddle the recorded snapshot. Each replayed book
/// is checked against a plain dictionary replay of the same frames.
@Suite struct GateKuCoinBookDecodeTests {
    static let epoch = Date(timeIntervalSince1970: 1_700_000_000)
    static let gatePair = MarketPair(base: "OMG", quote: "USDT")
    static let kucoinPair = MarketPair(base: "BCHSV", quote: "USDT")
    static let gateDiffs = "streams/gate/order_book_update-OMG_USDT-20210422-cryptofeed.jsonl"
    static let gateSnapshot = "streams/gate/order_book-OMG_USDT-20210422-cryptofeed.json"
    static let kucoinDiffs = "streams/kucoin/level2-BCHSV-USDT-20210425-cryptofeed.jsonl"
    static let kucoinSnapshot = "streams/kucoin/orderbook-level2-BCHSV-USDT-20210425-cryptofeed.json"

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

    /// A plain replay: price → size per side, levels of size 0 removed, best first.
    struct Reference {
        var bids: [Double: Double] = [:]
        var asks: [Double: Double] = [:]

        mutating func set(bid: Bool, _ price: String, _ size: String) {
            guard let p = Double(price), let s = Double(size), p > 0 else { return }
            if bid { bids[p] = s == 0 ? nil : s } else { asks[p] = s == 0 ? nil : s }
        }

        func top(bid: Bool, _ count: Int) -> [Double] {
            Array((bid ? bids.keys.sorted(by: >) : asks.keys.sorted()).prefix(count))
        }

        func sizes(bid: Bool, _ count: Int) -> [Double] { top(bid: bid, count).map { (bid ? bids : asks)[$0] ?? 0 } }
    }

    static func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    static func levels(_ value: Any?) -> [[String]] { (value as? [[Any]] ?? []).map { $0.map { "\($0)" } } }

    // MARK: Gate

    static func gateDiff(_ first: Int, _ final: Int, bids: String = "[]", asks: String = "[]") -> String {
        #"{"time":1619093540,"channel":"spot.order_book_update","event":"update","result":{"t":1619093540000,"e":"depthUpdate","E":1619093540,"s":"OMG_USDT","U":\#(first),"u":\#(final),"b":\#(bids),"a":\#(asks)}}"#
    }

    @Test func gateSubscribesOrderBookUpdatesPerPairAndFetchesItsSnapshotOverREST() throws {
        let stream = try #require(GateStream().keepingBooks(levels: 20))
        let plan = stream.subscription(for: ["OMG_USDT", "BTC_USDT"])
        #expect(plan.messages.count == 3)  // two order book requests, one tickers request
        #expect(plan.messages.contains { $0.contains(#""channel":"spot.order_book_update","event":"subscribe","payload":["OMG_USDT","100ms"]"#) })
        #expect(plan.messages.contains { $0.contains(#""channel":"spot.tickers","event":"subscribe","payload":["OMG_USDT","BTC_USDT"]"#) })
        #expect(!plan.messages.contains { $0.contains("spot.book_ticker") })
        #expect(plan.acks.count == 3 && plan.parts.count == 3)
        guard case .restSnapshot(let path) = stream.bookResync else {
            Issue.record("Gate rebuilds books from REST")
            return
        }
        #expect(path("OMG_USDT") == "/api/v4/spot/order_book?currency_pair=OMG_USDT&limit=100&with_id=true")
        #expect(GateStream().subscription(for: ["OMG_USDT"]).messages.contains { $0.contains("spot.book_ticker") })
    }

    /// The recorded updates arrive before the snapshot: buffered, one snapshot asked for; the recorded
    /// snapshot (id 59231869) seeds the book, the first update (`u` = 59231869) is dropped and the rest apply.
    @Test func gateRecordedUpdatesWaitForTheSnapshotThenApplyAsAPlainReplayDoes() throws {
        let stream = try #require(GateStream().keepingBooks(levels: 20))
        var table = StreamMarketTable(pairs: [Self.gatePair], marketID: stream.marketID, depthLevels: 20)
        let diffs = try Self.lines(Self.gateDiffs)
        for diff in diffs { #expect(Self.decode(diff, stream, &table) == .ignored) }
        #expect(table.takeBookRequests() == [BookSnapshotRequest(index: 0, market: "OMG_USDT", reason: nil)])
        let snapshot = try Fixtures.string(Self.gateSnapshot)
        #expect(Self.seed(snapshot, stream, &table))

        var reference = Reference()
        let seeded = try Self.object(snapshot)
        for level in Self.levels(seeded["bids"]) { reference.set(bid: true, level[0], level[1]) }
        for level in Self.levels(seeded["asks"]) { reference.set(bid: false, level[0], level[1]) }
        for diff in diffs.dropFirst() {
            let result = try #require(try Self.object(diff)["result"] as? [String: Any])
            for level in Self.levels(result["b"]) { reference.set(bid: true, level[0], level[1]) }
            for level in Self.levels(result["a"]) { reference.set(bid: false, level[0], level[1]) }
        }
        let book = try #require(table.book(0))
        #expect(book.isSynced)
        // The 20 levels a rule reads are the plain replay's; the book holds 40 a side so that levels moving up
        // are not missing, and below those 20 it may lack a level the snapshot had beyond its 40 (`BookSide`).
        #expect(book.bids.count >= 20 && book.asks.count >= 20, "\(book.bids.count) \(book.asks.count)")
        #expect(Array(book.bids.prices.prefix(20)) == reference.top(bid: true, 20) && Array(book.bids.sizes.prefix(20)) == reference.sizes(bid: true, 20))
        #expect(Array(book.asks.prices.prefix(20)) == reference.top(bid: false, 20) && Array(book.asks.sizes.prefix(20)) == reference.sizes(bid: false, 20))
        #expect(book.bids.prices.prefix(2) == [7.899, 7.898] && book.asks.prices.prefix(2) == [7.927, 7.939])
        #expect(table.entries[0].bookSequence.last == 59_231_921)
        #expect(book.at == Date(timeIntervalSince1970: 1_619_093_551.395))
        let quote = table.quote(0, exchange: .gate, receivedAt: Self.epoch)
        #expect(quote.bid?.value == 7.899 && quote.ask?.value == 7.927)
    }

    @Test func gateGapAndCrossedUpdateThrowTheBookAwayAndAFreshSnapshotRebuildsIt() throws {
        let stream = try #require(GateStream().keepingBooks(levels: 20))
        var table = StreamMarketTable(pairs: [Self.gatePair], marketID: stream.marketID, depthLevels: 20)
        let snapshot = try Fixtures.string(Self.gateSnapshot)
        for diff in try Self.lines(Self.gateDiffs) { _ = Self.decode(diff, stream, &table) }
        _ = table.takeBookRequests()
        #expect(Self.seed(snapshot, stream, &table))
        // A repeat is dropped; 59231922 is lost, so 59231923 is a gap.
        #expect(Self.decode(Self.gateDiff(59_231_921, 59_231_921), stream, &table) == .dropped(.outOfOrder))
        #expect(Self.decode(Self.gateDiff(59_231_923, 59_231_923, bids: #"[["7.9","5"]]"#), stream, &table) == .data)
        #expect(table.book(0)?.isSynced == false && table.touched == [0])
        #expect(table.takeBookRequests() == [BookSnapshotRequest(index: 0, market: "OMG_USDT", reason: .sequenceGap)])
        // The fresh snapshot, at 59231922: the update kept meanwhile applies on it.
        let fresh = snapshot.replacingOccurrences(of: #""id":59231869"#, with: #""id":59231922"#)
        #expect(Self.seed(fresh, stream, &table))
        #expect(table.book(0)?.isSynced == true && table.book(0)?.bids.best?.price == 7.9)
        // An update whose bid reaches the asks: refused, the book unusable, a snapshot asked for.
        #expect(Self.decode(Self.gateDiff(59_231_924, 59_231_924, bids: #"[["8.0","1"]]"#), stream, &table) == .dropped(.crossedBook))
        #expect(table.book(0)?.isSynced == false)
        #expect(table.takeBookRequests().map(\.reason) == [.sequenceGap])
        // Error bodies, bad levels and crossed snapshots seed nothing.
        #expect(!Self.seed(#"{"label":"INVALID_CURRENCY_PAIR","message":"Invalid currency pair OMG_USDT"}"#, stream, &table))
        #expect(!Self.seed(#"{"id":5,"asks":[["abc","1"]],"bids":[]}"#, stream, &table))
        #expect(!Self.seed(#"{"id":5,"asks":[["1","1"]],"bids":[["2","1"]]}"#, stream, &table))
        #expect(table.book(0)?.isSynced == false)
    }

    @Test func gateAnOversizedSnapshotKeepsTwiceTheLevelsRead() throws {
        let stream = try #require(GateStream().keepingBooks(levels: 2))
        var table = StreamMarketTable(pairs: [Self.gatePair], marketID: stream.marketID, depthLevels: 2)
        _ = Self.decode(Self.gateDiff(10, 10), stream, &table)
        let bids = (0..<500).map { #"["\#(1000 - $0)","1"]"# }.joined(separator: ",")
        let asks = (0..<500).map { #"["\#(1001 + $0)","1"]"# }.joined(separator: ",")
        #expect(Self.seed(#"{"id":9,"current":1619093540000,"update":1619093539000,"asks":[\#(asks)],"bids":[\#(bids)]}"#, stream, &table))
        #expect(table.book(0)?.bids.prices == [1000, 999, 998, 997])
        #expect(table.book(0)?.asks.prices == [1001, 1002, 1003, 1004])
        #expect(table.book(0)?.at == Date(timeIntervalSince1970: 1_619_093_540))
    }

    // MARK: KuCoin

    @Test func kucoinSubscribesLevel2BesideTheTickerAndFetchesLevel2_100() throws {
        let stream = try #require(KuCoinStream().keepingBooks(levels: 20))
        let plan = stream.subscription(for: ["BTC-USDT", "ETH-USDT"])
        #expect(plan.messages.count == 2 && plan.acks.count == 2)
        #expect(plan.messages.contains { $0.contains(#""topic":"/market/level2:BTC-USDT,ETH-USDT""#) })
        #expect(plan.messages.contains { $0.contains(#""topic":"/market/ticker:BTC-USDT,ETH-USDT""#) })
        #expect(KuCoinStream().subscription(for: ["BTC-USDT"]).messages.count == 1)
        guard case .restSnapshot(let path) = stream.bookResync else {
            Issue.record("KuCoin rebuilds books from REST")
            return
        }
        #expect(path("BTC-USDT") == "/api/v1/market/orderbook/level2_100?symbol=BTC-USDT")
    }

    /// The recorded messages (1613277183874…933) wait for the recorded snapshot (sequence 1613277183892): those
    /// it holds are dropped, the rest apply, and changes that only move the sequence (price 0) change nothing.
    @Test func kucoinRecordedMessagesWaitForTheSnapshotThenApplyAsAPlainReplayDoes() throws {
        let stream = try #require(KuCoinStream().keepingBooks(levels: 20))
        var table = StreamMarketTable(pairs: [Self.kucoinPair], marketID: stream.marketID, depthLevels: 20)
        let messages = try Self.lines(Self.kucoinDiffs)
        for message in messages { #expect(Self.decode(message, stream, &table) == .ignored) }
        #expect(table.takeBookRequests() == [BookSnapshotRequest(index: 0, market: "BCHSV-USDT", reason: nil)])
        let snapshot = try Fixtures.string(Self.kucoinSnapshot)
        #expect(Self.seed(snapshot, stream, &table))

        var reference = Reference()
        let data = try #require(try Self.object(snapshot)["data"] as? [String: Any])
        let sequence = try #require(data["sequence"] as? String)
        let seeded = try #require(Int64(sequence))
        for level in Self.levels(data["bids"]) { reference.set(bid: true, level[0], level[1]) }
        for level in Self.levels(data["asks"]) { reference.set(bid: false, level[0], level[1]) }
        for message in messages {
            let changes = try #require((try Self.object(message)["data"] as? [String: Any])?["changes"] as? [String: Any])
            for (side, bid) in [("bids", true), ("asks", false)] {
                for change in Self.levels(changes[side]) where (Int64(change[2]) ?? 0) > seeded { reference.set(bid: bid, change[0], change[1]) }
            }
        }
        let book = try #require(table.book(0))
        #expect(book.isSynced)
        // The 20 levels a rule reads are the plain replay's; the book holds 40 a side so that levels moving up
        // are not missing, and below those 20 it may lack a level the snapshot had beyond its 40 (`BookSide`).
        #expect(book.bids.count >= 20 && book.asks.count >= 20, "\(book.bids.count) \(book.asks.count)")
        #expect(Array(book.bids.prices.prefix(20)) == reference.top(bid: true, 20) && Array(book.bids.sizes.prefix(20)) == reference.sizes(bid: true, 20))
        #expect(Array(book.asks.prices.prefix(20)) == reference.top(bid: false, 20) && Array(book.asks.sizes.prefix(20)) == reference.sizes(bid: false, 20))
        #expect(book.bids.prices.prefix(2) == [242.646, 242.57] && book.asks.prices.prefix(2) == [242.951, 243.037])
        #expect(table.entries[0].bookSequence.last == 1_613_277_183_933)
    }

    @Test func kucoinGapResyncsAndTheTickerLeavesBidAndAskToTheBook() throws {
        let stream = try #require(KuCoinStream().keepingBooks(levels: 20))
        var table = StreamMarketTable(pairs: [Self.kucoinPair], marketID: stream.marketID, depthLevels: 20)
        for message in try Self.lines(Self.kucoinDiffs) { _ = Self.decode(message, stream, &table) }
        _ = table.takeBookRequests()
        let snapshot = try Fixtures.string(Self.kucoinSnapshot)
        #expect(Self.seed(snapshot, stream, &table))
        func change(_ first: Int, _ final: Int, bids: String = "[]", asks: String = "[]") -> String {
            #"{"data":{"sequenceStart":\#(first),"symbol":"BCHSV-USDT","changes":{"asks":\#(asks),"bids":\#(bids)},"sequenceEnd":\#(final),"time":1619378330000},"subject":"trade.l2update","topic":"/market/level2:BCHSV-USDT","type":"message"}"#
        }
        // The ticker's best bid and ask do not override the book's.
        let ticker = #"{"data":{"sequence":"1613277183940","bestAsk":"250","size":"1","bestBidSize":"1","price":"242.7","time":1619378330000,"bestAskSize":"1","bestBid":"200"},"subject":"trade.ticker","topic":"/market/ticker:BCHSV-USDT","type":"message"}"#
        #expect(Self.decode(ticker, stream, &table) == .data)
        let quote = table.quote(0, exchange: .kucoin, receivedAt: Self.epoch)
        #expect(quote.bid?.value == 242.646 && quote.ask?.value == 242.951 && quote.last?.value == 242.7)
        // 1613277183934 is lost.
        #expect(Self.decode(change(1_613_277_183_935, 1_613_277_183_935, bids: #"[["242.7","1","1613277183935"]]"#), stream, &table) == .data)
        #expect(table.book(0)?.isSynced == false)
        #expect(table.takeBookRequests().map(\.reason) == [.sequenceGap])
        let fresh = snapshot.replacingOccurrences(of: #""sequence":"1613277183892""#, with: #""sequence":"1613277183934""#)
        #expect(Self.seed(fresh, stream, &table))
        #expect(table.book(0)?.isSynced == true && table.book(0)?.bids.best?.price == 242.7)
        // A crossing change: refused, asked for again.
        #expect(Self.decode(change(1_613_277_183_936, 1_613_277_183_936, bids: #"[["300","1","1613277183936"]]"#), stream, &table) == .dropped(.crossedBook))
        #expect(table.takeBookRequests().map(\.reason) == [.sequenceGap])
        #expect(!Self.seed(#"{"code":"400100","msg":"symbol not exists"}"#, stream, &table))
    }
}
