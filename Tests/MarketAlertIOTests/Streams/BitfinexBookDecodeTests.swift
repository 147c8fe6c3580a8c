import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// Bitfinex `book` (P0) decoded from recorded frames: cryptofeed's capture (snapshots and single-level changes,
/// no checksums) and Bitfinex's own Go client's test data (a snapshot, a change and the checksum after it).
@Suite struct BitfinexBookDecodeTests {
    static let t0 = Date(timeIntervalSince1970: 1_618_677_545)
    static let checksumFile = "streams/bitfinex/book-checksum-XRPBTC-bitfinex-api-go.jsonl"
    static let cryptofeedFile = "streams/bitfinex/book-P0-DOGUSD-ODEUSD-20210417-cryptofeed.jsonl"

    static func decode(_ text: String, _ stream: BitfinexStream, _ table: inout StreamMarketTable) -> StreamFrame {
        table.beginFrame()
        return Array(text.utf8).withUnsafeBytes { stream.decode($0, into: &table, receivedAt: t0) }
    }

    /// The book the frames of channel `channel` describe, by Bitfinex's P0 rules applied here independently
    /// (JSONSerialization, a dictionary per side): prices best first, with their sizes.
    static func reference(_ lines: [String], channel: Int) -> (bids: [(Double, Double)], asks: [(Double, Double)]) {
        var bids: [Double: Double] = [:]
        var asks: [Double: Double] = [:]
        for line in lines {
            guard let frame = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [Any], frame.first as? Int == channel,
                  let payload = frame.dropFirst().first as? [Any]
            else { continue }
            func numbers(_ value: Any) -> [Double] { (value as? [Any] ?? []).compactMap { ($0 as? NSNumber)?.doubleValue } }
            let levels = payload.first is [Any] ? payload.map(numbers) : [numbers(payload)]
            if payload.first is [Any] || payload.isEmpty { bids = [:]; asks = [:] }
            for level in levels where level.count == 3 {
                if level[1] == 0 {
                    if level[2] > 0 { bids[level[0]] = nil } else { asks[level[0]] = nil }
                } else if level[2] > 0 {
                    bids[level[0]] = level[2]
                } else {
                    asks[level[0]] = -level[2]
                }
            }
        }
        return (bids.sorted { $0.key > $1.key }.map { ($0.key, $0.value) }, asks.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }

    @Test func subscribesChecksumsThenATickerAndABookPerMarket() throws {
        #expect(BitfinexBook.length(levels: 20) == 25 && BitfinexBook.length(levels: 60) == 100 && BitfinexBook.length(levels: 900) == 250)
        let stream = try #require(BitfinexStream().keepingBooks(levels: 20))
        let plan = stream.subscription(for: ["tBTCUST", "tTESTBTC:TESTUSD"])
        #expect(plan.messages == [
            #"{"event":"conf","flags":131072}"#,
            #"{"event":"subscribe","channel":"ticker","symbol":"tBTCUST"}"#,
            #"{"event":"subscribe","channel":"book","symbol":"tBTCUST","prec":"P0","freq":"F0","len":"25"}"#,
        ])
        #expect(plan.acks == ["conf", "ticker:tBTCUST", "book:tBTCUST"])
        // Without books nothing changes.
        #expect(BitfinexStream().subscription(for: ["tBTCUST"]).messages == [#"{"event":"subscribe","channel":"ticker","symbol":"tBTCUST"}"#])
        guard case .reconnect = stream.bookResync else {
            Issue.record("Bitfinex rebuilds a book with a replacement connection")
            return
        }
    }

    @Test func theRecordedChecksumHoldsOverTheRecordedSnapshotAndChange() throws {
        let stream = try #require(BitfinexStream().keepingBooks(levels: 20))
        var table = StreamMarketTable(pairs: [MarketPair(base: "XRP", quote: "BTC")], marketID: stream.marketID, depthLevels: 20)
        let lines = try DepthBookDecodeTests.lines(Self.checksumFile)
        #expect(Self.decode(lines[0], stream, &table) == .acked(keys: ["conf"], complete: false))
        #expect(Self.decode(lines[1], stream, &table) == .acked(keys: ["book:tXRPBTC"], complete: false))
        #expect(Self.decode(lines[2], stream, &table) == .data)
        #expect(Self.decode(lines[3], stream, &table) == .data)
        #expect(Self.decode(lines[4], stream, &table) == .heartbeat)  // the checksum holds: nothing to hand on
        #expect(table.takeBookRequests().isEmpty)
        let book = try #require(table.book(0))
        #expect(book.isSynced && book.at == Self.t0)  // no time of its own: the receive time
        let expected = Self.reference(Array(lines[2...3]), channel: 81757)
        #expect(book.bids.prices == expected.bids.prefix(40).map(\.0) && book.bids.sizes == expected.bids.prefix(40).map(\.1))
        #expect(book.asks.prices == expected.asks.prefix(40).map(\.0) && book.asks.sizes == expected.asks.prefix(40).map(\.1))
        #expect(book.bids.best?.size == 266_122.94 && book.asks.best?.price == 0.00000111)
        #expect(book.bids.prices.contains(7e-7))  // `7e-7` as sent
        let quote = table.quote(0, exchange: .bitfinex, receivedAt: Self.t0)
        #expect(quote.bid?.value == 0.0000011 && quote.ask?.value == 0.00000111)
    }

    @Test func aChecksumMismatchThrowsTheBookAwayUntilTheNextSnapshot() throws {
        let stream = try #require(BitfinexStream().keepingBooks(levels: 20))
        var table = StreamMarketTable(pairs: [MarketPair(base: "XRP", quote: "BTC")], marketID: stream.marketID, depthLevels: 20)
        let lines = try DepthBookDecodeTests.lines(Self.checksumFile)
        for line in lines.prefix(3) { _ = Self.decode(line, stream, &table) }
        // The change is lost: the checksum that follows it cannot hold.
        #expect(Self.decode(lines[4], stream, &table) == .data)
        #expect(table.touched == [0] && table.book(0)?.isSynced == false)
        #expect(table.takeBookRequests() == [BookSnapshotRequest(index: 0, market: "tXRPBTC", reason: .checksum)])
        // Later changes build on a book known to be wrong: ignored; the next snapshot makes it usable again.
        #expect(Self.decode(lines[3], stream, &table) == .ignored)
        #expect(Self.decode(lines[4], stream, &table) == .heartbeat)
        #expect(Self.decode(lines[2], stream, &table) == .data)
        #expect(Self.decode(lines[3], stream, &table) == .data)
        #expect(Self.decode(lines[4], stream, &table) == .heartbeat)
        #expect(table.book(0)?.isSynced == true)
    }

    @Test func removalsCrossingsBadLevelsAndOtherConnections() throws {
        let stream = try #require(BitfinexStream().keepingBooks(levels: 20))
        var table = StreamMarketTable(pairs: [MarketPair(base: "XRP", quote: "BTC")], marketID: stream.marketID, depthLevels: 20)
        let lines = try DepthBookDecodeTests.lines(Self.checksumFile)
        for line in lines.prefix(3) { _ = Self.decode(line, stream, &table) }
        // COUNT 0 removes: AMOUNT 1 from the bids.
        #expect(Self.decode("[81757,[0.0000011,0,1]]", stream, &table) == .data)
        #expect(table.book(0)?.bids.best?.price == 0.00000109)
        // A replacement connection binds its own channel; its changes wait for its own snapshot, and once
        // that came, the old connection's late changes are not applied either.
        table.connection = 9
        // Not bound there yet: read as a ticker, whose shape it is not.
        #expect(Self.decode("[81757,[0.00000109,0,1]]", stream, &table) == .dropped(.malformed))
        #expect(Self.decode(lines[1], stream, &table) == .acked(keys: ["book:tXRPBTC"], complete: false))
        #expect(Self.decode("[81757,[0.00000109,0,1]]", stream, &table) == .ignored)
        #expect(Self.decode(lines[2], stream, &table) == .data)
        table.connection = 0
        #expect(Self.decode("[81757,[0.0000011,0,1]]", stream, &table) == .ignored)
        #expect(table.book(0)?.bids.best?.price == 0.0000011)
        table.connection = 9
        // A bid at or above the best ask: a change was lost; the book is refused and asked for again.
        #expect(Self.decode("[81757,[0.00000112,1,5]]", stream, &table) == .dropped(.crossedBook))
        #expect(table.book(0)?.isSynced == false)
        #expect(table.takeBookRequests().map(\.reason) == [.sequenceGap])
        #expect(Self.decode(lines[2], stream, &table) == .data)
        // Unusable levels: a string price, a removal of neither side, a zero amount, a negative price.
        for bad in ["[81757,[\"0.0000011\",1,5]]", "[81757,[0.0000011,0,2]]", "[81757,[0.0000011,1,0]]", "[81757,[-1,1,5]]", "[81757,[1,2]]"] {
            #expect(Self.decode(lines[2], stream, &table) == .data)
            _ = table.takeBookRequests()
            #expect(Self.decode(bad, stream, &table) == .dropped(.malformed), "\(bad)")
            #expect(table.book(0)?.isSynced == false, "\(bad)")
        }
        #expect(Self.decode("[81757,\"cs\",\"x\"]", stream, &table) == .dropped(.malformed))
    }

    @Test func theRecordedCaptureBuildsTheBooksItDescribes() throws {
        let stream = try #require(BitfinexStream().keepingBooks(levels: 50))  // len 100, as recorded
        let pairs: Set<MarketPair> = [MarketPair(base: "DOG", quote: "USD"), MarketPair(base: "ODE", quote: "USD")]
        var table = StreamMarketTable(pairs: pairs, marketID: stream.marketID, depthLevels: 50)
        let lines = try DepthBookDecodeTests.lines(Self.cryptofeedFile)
        #expect(lines.count == 54)
        var data = 0
        for line in lines {
            let frame = Self.decode(line, stream, &table)
            if frame == .data { data += 1 }
            #expect(![.dropped(.malformed), .dropped(.crossedBook), .unwatched].contains(frame), "\(line.prefix(80))")
        }
        #expect(data == 47)
        for (symbol, channel) in [("tDOGUSD", 225_206), ("tODEUSD", 204_928)] {
            let index = try #require(table.entries.firstIndex { $0.market == symbol })
            let book = try #require(table.book(index))
            let expected = Self.reference(lines, channel: channel)
            #expect(book.isSynced, "\(symbol)")
            #expect(book.bids.prices == expected.bids.prefix(100).map(\.0), "\(symbol)")
            #expect(book.asks.sizes == expected.asks.prefix(100).map(\.1), "\(symbol)")
        }
        // Without books, the same frames are tickers' strangers.
        var plain = StreamMarketTable(pairs: pairs, marketID: BitfinexStream().marketID)
        #expect(Self.decode(lines[2], BitfinexStream(), &plain) == .ignored)
        #expect(Self.decode(lines[3], BitfinexStream(), &plain) == .unwatched)
    }
}
