import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// HTX `depth.step0` pushes decoded from the exact gzip frames HTX sent (cryptofeed), and Coinbase's REST
/// level-2 book seeded and polled on the stream's heartbeats.
@Suite struct HTXCoinbaseBookDecodeTests {
    static let t0 = Date(timeIntervalSince1970: 1_618_678_070)
    static let htxFile = "streams/htx/depth-step0-borusdt-dogeeth-20210417-cryptofeed.b64"
    static let coinbaseFile = "streams/coinbase/products-SKL-USD-book-level2-constructed.json"

    static func frames(_ fixture: String) throws -> [Data] {
        try DepthBookDecodeTests.lines(fixture).map { try #require(Data(base64Encoded: $0)) }
    }

    static func decode(_ frame: Data, _ stream: some ExchangeStreamProtocol, _ table: inout StreamMarketTable, at: Date = t0) -> StreamFrame {
        table.beginFrame()
        return frame.withUnsafeBytes { stream.decode($0, into: &table, receivedAt: at) }
    }

    /// The inflated text of a recorded frame, parsed here (JSONSerialization) for the reference.
    static func tick(_ frame: Data) throws -> [String: Any] {
        var scratch: [UInt8] = []
        let text = try #require(frame.withUnsafeBytes { HTXGzip.inflate($0, scratch: &scratch, limit: 1 << 20) { Data($0) } })
        let object = try #require(try JSONSerialization.jsonObject(with: text) as? [String: Any])
        return try #require(object["tick"] as? [String: Any])
    }

    // MARK: HTX

    @Test func htxSubscribesDepthBesideBboAndTicker() throws {
        let stream = try #require(HTXStream().keepingBooks(levels: 20))
        #expect(stream.subscription(for: ["btcusdt"]).acks == ["market.btcusdt.bbo", "market.btcusdt.ticker", "market.btcusdt.depth.step0"])
        #expect(HTXStream().subscription(for: ["btcusdt"]).acks == ["market.btcusdt.bbo", "market.btcusdt.ticker"])
    }

    @Test func htxRecordedPushesAreWholeBooks() throws {
        let stream = try #require(HTXStream().keepingBooks(levels: 20))
        let pairs: Set<MarketPair> = [MarketPair(base: "BOR", quote: "USDT"), MarketPair(base: "DOGE", quote: "ETH")]
        var table = StreamMarketTable(pairs: pairs, marketID: stream.marketID, depthLevels: 20)
        let frames = try Self.frames(Self.htxFile)
        #expect(frames.count == 18)
        for frame in frames {
            let outcome = Self.decode(frame, stream, &table)
            guard case .acked = outcome else {
                #expect(outcome == .data)
                let tick = try Self.tick(frame)
                let bids = try #require(tick["bids"] as? [[NSNumber]]).map { $0.map(\.doubleValue) }
                let asks = try #require(tick["asks"] as? [[NSNumber]]).map { $0.map(\.doubleValue) }
                let index = try #require(table.touched.first)
                let book = try #require(table.book(index))
                // The best 40 levels (2 × 20 kept) of 141 to 150 a side, as sent, at the push's own time.
                #expect(book.isSynced && book.bids.count == 40 && book.asks.count == 40)
                #expect(book.bids.prices == bids.prefix(40).map { $0[0] } && book.asks.sizes == asks.prefix(40).map { $0[1] })
                #expect(book.at == Date(timeIntervalSince1970: try #require(tick["ts"] as? NSNumber).doubleValue / 1000))
                // The quote's best bid and ask stay `bbo`'s: none came here.
                #expect(table.entries[index].bid == nil && table.entries[index].ask == nil)
                continue
            }
        }
        // A push older in version and time than the book (a replaced connection's late frame) is dropped.
        #expect(Self.decode(frames[1], stream, &table) == .dropped(.outOfOrder))
        // Without books the pushes are not read.
        var plain = StreamMarketTable(pairs: pairs, marketID: HTXStream().marketID)
        #expect(Self.decode(frames[1], HTXStream(), &plain) == .ignored)
    }

    @Test func htxCrossedOrBadPushLeavesNoBookUntilTheNextWithoutAResync() throws {
        let stream = try #require(HTXStream().keepingBooks(levels: 5))
        var table = StreamMarketTable(pairs: [MarketPair(base: "BTC", quote: "USDT")], marketID: stream.marketID, depthLevels: 5)
        func push(_ bids: String, _ asks: String, version: Int, ts: Int) -> Data {
            HTXGzip.compress(#"{"ch":"market.btcusdt.depth.step0","ts":\#(ts + 3),"tick":{"bids":\#(bids),"asks":\#(asks),"version":\#(version),"ts":\#(ts)}}"#)
        }
        #expect(Self.decode(push("[[100,1]]", "[[101,1]]", version: 10, ts: 1_000), stream, &table) == .data)
        #expect(table.book(0)?.isSynced == true)
        #expect(Self.decode(push("[[102,1]]", "[[101,1]]", version: 11, ts: 2_000), stream, &table) == .dropped(.crossedBook))
        #expect(table.touched == [0] && table.book(0)?.isSynced == false)
        #expect(Self.decode(push("[[100,\"x\"]]", "[[101,1]]", version: 12, ts: 3_000), stream, &table) == .dropped(.invalidPrice))
        #expect(Self.decode(push("{}", "[[101,1]]", version: 13, ts: 4_000), stream, &table) == .dropped(.malformed))
        #expect(table.takeBookRequests().isEmpty)  // every push is whole: the next one is the resync
        // HTX numbering afresh (a smaller version, a newer time) is taken.
        #expect(Self.decode(push("[[100,2]]", "[[101,1]]", version: 3, ts: 5_000), stream, &table) == .data)
        #expect(table.book(0)?.isSynced == true && table.book(0)?.bids.best?.size == 2)
        // A `bbo` keeps setting the quote's bid and ask beside the book.
        let bbo = HTXGzip.compress(#"{"ch":"market.btcusdt.bbo","ts":6000,"tick":{"seqId":1,"ask":100.6,"bid":100.4,"quoteTime":6000,"symbol":"btcusdt"}}"#)
        #expect(Self.decode(bbo, stream, &table) == .data)
        #expect(table.entries[0].bid?.value == 100.4 && table.book(0)?.bids.best?.price == 100)
    }

    // MARK: Coinbase

    @Test func coinbasePollsItsRESTBookOnHeartbeatsAndKeepsItInUseMeanwhile() throws {
        let stream = try #require(CoinbaseStream().keepingBooks(levels: 20))
        #expect(stream.subscription(for: ["SKL-USD"]) == CoinbaseStream().subscription(for: ["SKL-USD"]))
        guard case .restSnapshot(let path) = stream.bookResync else {
            Issue.record("Coinbase books come from REST")
            return
        }
        #expect(path("SKL-USD") == "/products/SKL-USD/book?level=2")
        var table = StreamMarketTable(pairs: [MarketPair(base: "SKL", quote: "USD")], marketID: stream.marketID, depthLevels: 20)
        func heartbeat(at time: Date) -> StreamFrame {
            Self.decode(Data(#"{"type":"heartbeat","last_trade_id":1568267,"product_id":"SKL-USD","sequence":201390050,"time":"2021-04-17T16:43:38.000000Z"}"#.utf8), stream, &table, at: time)
        }
        #expect(heartbeat(at: Self.t0) == .heartbeat)
        #expect(table.takeBookRequests() == [BookSnapshotRequest(index: 0, market: "SKL-USD", reason: nil)])
        #expect(heartbeat(at: Self.t0.addingTimeInterval(1)) == .heartbeat)
        #expect(table.takeBookRequests().isEmpty)  // asked for already
        let body = try Fixtures.data(Self.coinbaseFile)
        let seeded = body.withUnsafeBytes { stream.seedBook($0, at: 0, into: &table, receivedAt: Self.t0.addingTimeInterval(1)) }
        #expect(seeded)
        let book = try #require(table.book(0))
        let object = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        let bids = try #require(object["bids"] as? [[Any]]).compactMap { ($0.first as? String).flatMap(Double.init) }
        #expect(book.isSynced && book.bids.prices == Array(bids.prefix(40)) && book.asks.count == 40)
        #expect(book.at == Date(timeIntervalSince1970: 1_618_677_817.120608))
        #expect(table.entries[0].bid?.value == 0.7901 && table.entries[0].ask?.value == 0.791)
        // Within the interval (5 s for one product) nothing is asked; after it, the book is asked for anew and
        // stays in use meanwhile (a refresh is not a resync).
        #expect(CoinbaseBook.interval(markets: 1) == 5 && CoinbaseBook.interval(markets: 50) == 20)
        #expect(heartbeat(at: Self.t0.addingTimeInterval(4)) == .heartbeat)
        #expect(table.takeBookRequests().isEmpty)
        #expect(heartbeat(at: Self.t0.addingTimeInterval(5)) == .heartbeat)
        #expect(table.takeBookRequests() == [BookSnapshotRequest(index: 0, market: "SKL-USD", reason: nil)])
        #expect(table.book(0)?.isSynced == true)
    }

    @Test func coinbaseAuctionsCrossedBooksAndErrorsGiveNoUsableBook() throws {
        let stream = try #require(CoinbaseStream().keepingBooks(levels: 5))
        var table = StreamMarketTable(pairs: [MarketPair(base: "BTC", quote: "USD")], marketID: stream.marketID, depthLevels: 5)
        func seed(_ text: String) -> Bool {
            table.beginFrame()
            return Array(text.utf8).withUnsafeBytes { stream.seedBook($0, at: 0, into: &table, receivedAt: Self.t0) }
        }
        let good = #"{"bids":[["113729.4","0.28534551",5]],"asks":[["113729.41","0.00096729",2]],"sequence":114340891054,"auction_mode":false,"auction":null,"time":"2025-10-28T02:50:43.768106912Z"}"#
        #expect(seed(good) && table.book(0)?.isSynced == true)
        #expect(seed(good.replacingOccurrences(of: #""auction_mode":false"#, with: #""auction_mode":true"#)))
        #expect(table.book(0)?.isSynced == false)  // an indicative auction quote is nothing to trade against
        #expect(seed(good))
        #expect(!seed(good.replacingOccurrences(of: "113729.41", with: "113729.39")))  // crossed
        #expect(table.book(0)?.isSynced == false)
        #expect(!seed(#"{"message":"NotFound"}"#))
        #expect(!seed(#"{"bids":[["abc"]],"asks":[],"sequence":1}"#))
        #expect(!seed("not json"))
    }
}
