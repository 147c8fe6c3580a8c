import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// CRC-32 as zlib computes it, against the standard check values.
@Suite struct CRC32Tests {
    func crc(_ text: String) -> UInt32 { Array(text.utf8).withUnsafeBytes { CRC32.checksum($0) } }

    @Test func knownVectors() {
        #expect(crc("") == 0)
        #expect(crc("a") == 0xE8B7_BE43)
        #expect(crc("123456789") == 0xCBF4_3926)  // the CRC-32/ISO-HDLC check value
        #expect(crc("The quick brown fox jumps over the lazy dog") == 0x414F_A339)
    }

    @Test func piecesAndSingleBytesContinueTheSameChecksum() {
        var pieces = CRC32()
        Array("12345".utf8).withUnsafeBytes { pieces.update($0) }
        pieces.update(byte: UInt8(ascii: "6"))
        Array("789".utf8).withUnsafeBytes { pieces.update($0) }
        #expect(pieces.value == 0xCBF4_3926)
    }

    @Test func signedAndUnsignedSentValuesMatch() {
        #expect(CRC32.matches(-1, 0xFFFF_FFFF))
        #expect(CRC32.matches(4_294_967_295, 0xFFFF_FFFF))
        #expect(CRC32.matches(-1_367_582_038, UInt32(bitPattern: -1_367_582_038)))
        #expect(!CRC32.matches(4_294_967_296, 0))
        #expect(!CRC32.matches(12, 13))
    }
}

/// Books whose integrity is a CRC-32 over the levels' text: OKX and Bitget (`books`, top 25 interleaved) and
/// Kraken v2 (`book`, top 10 asks then bids, digits only). Real recorded frames, every checksum verified.
@Suite struct ChecksumBookStreamTests {
    static let t0 = Date(timeIntervalSince1970: 0)

    func frames(_ path: String) throws -> [String] {
        try Fixtures.string(path).split(separator: "\n").map(String.init)
    }

    func decode<P: ExchangeStreamProtocol>(_ text: String, _ stream: P, _ table: inout StreamMarketTable) -> StreamFrame {
        table.beginFrame()
        return Array(text.utf8).withUnsafeBytes { stream.decode($0, into: &table, receivedAt: Self.t0) }
    }

    /// `text` with its (first) checksum value replaced by `value`.
    func withChecksum(_ text: String, _ value: String) throws -> String {
        let range = try #require(text.range(of: #""checksum":-?[0-9]+"#, options: .regularExpression))
        return text.replacingCharacters(in: range, with: "\"checksum\":\(value)")
    }

    func firstNumber(_ text: String, after key: String) throws -> Double {
        let range = try #require(text.range(of: key + #"[^0-9]*[0-9.]+"#, options: .regularExpression))
        let digits = text[range].drop { !$0.isNumber }
        return try #require(Double(String(digits)))
    }

    // MARK: OKX

    let okxPair = MarketPair(base: "BTC", quote: "USDT")
    let okxFile = "streams/okx/books-BTC-USDT-20220513-cryptofeed.jsonl"

    @Test func okxSubscribesBooksBesideTickers() throws {
        let plain = OKXStream().subscription(for: ["BTC-USDT"])
        #expect(plain.acks == ["tickers:BTC-USDT"])
        let books = try #require(OKXStream().keepingBooks(levels: 20)).subscription(for: ["BTC-USDT", "ETH-USDT"])
        #expect(books.acks == ["tickers:BTC-USDT", "books:BTC-USDT", "tickers:ETH-USDT", "books:ETH-USDT"])
        #expect(books.messages == [#"{"op":"subscribe","args":[{"channel":"tickers","instId":"BTC-USDT"},{"channel":"books","instId":"BTC-USDT"},{"channel":"tickers","instId":"ETH-USDT"},{"channel":"books","instId":"ETH-USDT"}]}"#])
        // 50 args a request: 30 markets with books take two requests.
        let many = (0..<30).map { "C\($0)-USDT" }
        #expect(try #require(OKXStream().keepingBooks(levels: 20)).subscription(for: many).messages.count == 2)
    }

    @Test func okxRecordedFramesVerifyOneByOne() throws {
        let stream = try #require(OKXStream().keepingBooks(levels: 20))
        var table = StreamMarketTable(pairs: [okxPair], marketID: stream.marketID, depthLevels: 20)
        let lines = try frames(okxFile)
        #expect(lines.count == 41)
        for (number, line) in lines.enumerated() {
            #expect(decode(line, stream, &table) == .data, "frame \(number)")
            #expect(table.book(0)?.isSynced == true, "frame \(number)")
        }
        // The 400-level snapshot is more than kept: the book reads 2 × 20 levels a side, best first.
        let book = try #require(table.book(0))
        #expect(book.bids.count == 40 && book.asks.count == 40)
        #expect(zip(book.asks.prices, book.asks.prices.dropFirst()).allSatisfy { $0 < $1 })
        #expect(zip(book.bids.prices, book.bids.prices.dropFirst()).allSatisfy { $0 > $1 })
        let quote = table.quote(0, exchange: .okx, receivedAt: Self.t0)
        #expect(quote.bid?.value == book.bids.best?.price && quote.ask?.value == book.asks.best?.price)
        #expect(quote.depth?.isSynced == true)
    }

    @Test func okxSnapshotReadsAsSent() throws {
        let stream = try #require(OKXStream().keepingBooks(levels: 5))
        var table = StreamMarketTable(pairs: [okxPair], marketID: stream.marketID, depthLevels: 5)
        let snapshot = try #require(try frames(okxFile).first)
        #expect(decode(snapshot, stream, &table) == .data)
        let book = try #require(table.book(0))
        #expect(book.asks.best?.price == (try firstNumber(snapshot, after: #""asks":\[\[""#)))
        #expect(book.bids.best?.price == (try firstNumber(snapshot, after: #""bids":\[\[""#)))
        #expect(book.at == Date(timeIntervalSince1970: try firstNumber(snapshot, after: #""ts":""#) / 1000))
        #expect(book.asks.count == 10)
    }

    @Test func okxBadChecksumLeavesNoUsableBookUntilTheNextSnapshot() throws {
        let stream = try #require(OKXStream().keepingBooks(levels: 20))
        var table = StreamMarketTable(pairs: [okxPair], marketID: stream.marketID, depthLevels: 20)
        let lines = try frames(okxFile)
        #expect(decode(lines[0], stream, &table) == .data)
        #expect(decode(lines[1], stream, &table) == .data)
        // A lost change shows as a checksum that does not match: the engine hears at once, the book is unusable.
        #expect(decode(try withChecksum(lines[2], "12345"), stream, &table) == .data)
        #expect(table.touched == [0])
        #expect(table.book(0)?.isSynced == false)
        // The transport is asked for a fresh snapshot, once, counted as a checksum resync.
        #expect(table.takeBookRequests() == [BookSnapshotRequest(index: 0, market: "BTC-USDT", reason: .checksum)])
        guard case .resubscribe(let messages) = stream.bookResync else {
            Issue.record("OKX resyncs a book on the serving connection")
            return
        }
        #expect(messages("BTC-USDT") == [
            #"{"op":"unsubscribe","args":[{"channel":"books","instId":"BTC-USDT"}]}"#,
            #"{"op":"subscribe","args":[{"channel":"books","instId":"BTC-USDT"}]}"#,
        ])
        table.forgetBookRequest(0)
        // Later changes build on a book known to be wrong: ignored until a snapshot.
        #expect(decode(lines[3], stream, &table) == .ignored)
        #expect(table.book(0)?.isSynced == false)
        // The next snapshot (a new subscription's) makes it usable again, and changes apply on it.
        #expect(decode(lines[0], stream, &table) == .data)
        #expect(table.book(0)?.isSynced == true)
        #expect(decode(lines[1], stream, &table) == .data)
        #expect(table.book(0)?.isSynced == true)
    }

    @Test func okxSnapshotWithABadChecksumIsRefused() throws {
        let stream = try #require(OKXStream().keepingBooks(levels: 20))
        var table = StreamMarketTable(pairs: [okxPair], marketID: stream.marketID, depthLevels: 20)
        let snapshot = try withChecksum(try frames(okxFile)[0], "-7")
        #expect(decode(snapshot, stream, &table) == .data)
        #expect(table.book(0)?.isSynced == false)
    }

    @Test func okxBooksAreIgnoredWithoutBooksAndUnwatchedElsewhere() throws {
        let lines = try frames(okxFile)
        var plain = StreamMarketTable(pairs: [okxPair], marketID: OKXStream().marketID)
        #expect(decode(lines[0], OKXStream(), &plain) == .ignored)
        let stream = try #require(OKXStream().keepingBooks(levels: 20))
        var other = StreamMarketTable(pairs: [MarketPair(base: "ETH", quote: "USDT")], marketID: stream.marketID, depthLevels: 20)
        #expect(decode(lines[0], stream, &other) == .unwatched)
    }

    @Test func okxUnusableLevelLeavesNoUsableBook() throws {
        let stream = try #require(OKXStream().keepingBooks(levels: 20))
        var table = StreamMarketTable(pairs: [okxPair], marketID: stream.marketID, depthLevels: 20)
        let lines = try frames(okxFile)
        _ = decode(lines[0], stream, &table)
        let bad = #"{"arg":{"channel":"books","instId":"BTC-USDT"},"action":"update","data":[{"asks":[["abc","1","0","1"]],"bids":[],"ts":"1652459226000","checksum":1}]}"#
        #expect(decode(bad, stream, &table) == .dropped(.malformed))
        #expect(table.book(0)?.isSynced == false)
        let tooLong = #"{"arg":{"channel":"books","instId":"BTC-USDT"},"action":"snapshot","data":[{"asks":[["30000.000000000000000000001","1","0","1"]],"bids":[],"ts":"1652459226000","checksum":0}]}"#
        #expect(decode(tooLong, stream, &table) == .dropped(.malformed))
        #expect(table.book(0)?.isSynced == false)
    }

    // MARK: Bitget

    let bitgetPair = MarketPair(base: "EOS", quote: "USDT")
    let bitgetFile = "streams/bitget/books-EOSUSDT-20220407-cryptofeed-v1.jsonl"

    @Test func bitgetSubscribesBooksBesideTicker() throws {
        let books = try #require(BitgetStream().keepingBooks(levels: 20)).subscription(for: ["EOSUSDT"])
        #expect(books.acks == ["ticker:EOSUSDT", "books:EOSUSDT"])
        #expect(books.messages == [#"{"op":"subscribe","args":[{"instType":"SPOT","channel":"ticker","instId":"EOSUSDT"},{"instType":"SPOT","channel":"books","instId":"EOSUSDT"}]}"#])
    }

    @Test func bitgetRecordedFramesVerifyOneByOne() throws {
        let stream = try #require(BitgetStream().keepingBooks(levels: 10))
        var table = StreamMarketTable(pairs: [bitgetPair], marketID: stream.marketID, depthLevels: 10)
        let lines = try frames(bitgetFile)
        #expect(lines.count == 31)
        for (number, line) in lines.enumerated() {
            #expect(decode(line, stream, &table) == .data, "frame \(number)")
            #expect(table.book(0)?.isSynced == true, "frame \(number)")
        }
        let book = try #require(table.book(0))
        #expect(book.bids.count == 20 && book.asks.count == 20)
        #expect((book.bids.best?.price ?? 0) < (book.asks.best?.price ?? 0))
    }

    @Test func bitgetBadChecksumThenSnapshot() throws {
        let stream = try #require(BitgetStream().keepingBooks(levels: 10))
        var table = StreamMarketTable(pairs: [bitgetPair], marketID: stream.marketID, depthLevels: 10)
        let lines = try frames(bitgetFile)
        #expect(decode(lines[0], stream, &table) == .data)
        #expect(decode(try withChecksum(lines[1], "0"), stream, &table) == .data)
        #expect(table.book(0)?.isSynced == false)
        #expect(table.takeBookRequests().map(\.reason) == [.checksum])
        #expect(decode(lines[2], stream, &table) == .ignored)
        #expect(decode(lines[0], stream, &table) == .data)
        #expect(table.book(0)?.isSynced == true)
    }

    @Test func bitgetSnapshotWithoutChecksumIsTakenWhole() throws {
        // ccxt notes Bitget's v2 snapshots may come without a checksum.
        let stream = try #require(BitgetStream().keepingBooks(levels: 10))
        var table = StreamMarketTable(pairs: [bitgetPair], marketID: stream.marketID, depthLevels: 10)
        let snapshot = #"{"action":"snapshot","arg":{"instType":"SPOT","channel":"books","instId":"EOSUSDT"},"data":[{"asks":[["2.85","10"]],"bids":[["2.84","5"]],"ts":"1649290077520"}],"ts":1649290077521}"#
        #expect(decode(snapshot, stream, &table) == .data)
        #expect(table.book(0)?.isSynced == true)
        #expect(table.book(0)?.asks.best?.price == 2.85)
    }

    // MARK: Kraken

    let krakenPairs: Set<MarketPair> = [MarketPair(base: "BTC", quote: "CHF"), MarketPair(base: "GRT", quote: "ETH")]
    let krakenFile = "streams/kraken/book-v2-BTC-CHF-GRT-ETH-20210417-cryptofeed-v1.jsonl"

    @Test func krakenSubscribesTheSmallestDepthThatCovers() throws {
        #expect(KrakenBook.depth(levels: 5) == 10)
        #expect(KrakenBook.depth(levels: 20) == 25)
        #expect(KrakenBook.depth(levels: 600) == 1000)
        let sub = try #require(KrakenStream().keepingBooks(levels: 20)).subscription(for: ["BTC/USD"])
        #expect(sub.acks == ["ticker:BTC/USD", "book:BTC/USD"])
        #expect(sub.messages.count == 2)
        #expect(sub.messages[1] == #"{"method":"subscribe","params":{"channel":"book","symbol":["BTC/USD"],"depth":25,"snapshot":true},"req_id":2}"#)
        #expect(KrakenStream().subscription(for: ["BTC/USD"]).messages.count == 1)
    }

    @Test func krakenRecordedFramesVerifyOneByOne() throws {
        // Recorded at depth 1000: replayed at that depth (Kraken cuts the book to it after each message).
        let stream = try #require(KrakenStream().keepingBooks(levels: 600))
        var table = StreamMarketTable(pairs: krakenPairs, marketID: stream.marketID, depthLevels: 600)
        let lines = try frames(krakenFile)
        #expect(lines.count == 62)
        for (number, line) in lines.enumerated() {
            #expect(decode(line, stream, &table) == .data, "frame \(number)")
            #expect(table.touched.allSatisfy { table.book($0)?.isSynced == true }, "frame \(number)")
        }
        let index = try #require(table.entries.firstIndex { $0.market == "BTC/CHF" })
        let book = try #require(table.book(index))
        // The book's time is the last message's `timestamp`.
        let last = try #require(lines.last { $0.contains("BTC/CHF") })
        let stamp = try #require(last.range(of: #"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z"#, options: .regularExpression))
        #expect(book.at == Array(last[stamp].utf8).withUnsafeBytes { KrakenTime.date($0) })
        #expect((book.bids.best?.price ?? 0) < (book.asks.best?.price ?? 0))
    }

    @Test func krakenBadChecksumThenSnapshot() throws {
        let stream = try #require(KrakenStream().keepingBooks(levels: 600))
        var table = StreamMarketTable(pairs: krakenPairs, marketID: stream.marketID, depthLevels: 600)
        let lines = try frames(krakenFile).filter { $0.contains("BTC/CHF") }
        #expect(decode(lines[0], stream, &table) == .data)
        #expect(decode(lines[1], stream, &table) == .data)
        #expect(decode(try withChecksum(lines[2], "1"), stream, &table) == .data)
        let index = try #require(table.entries.firstIndex { $0.market == "BTC/CHF" })
        #expect(table.book(index)?.isSynced == false)
        #expect(table.takeBookRequests() == [BookSnapshotRequest(index: index, market: "BTC/CHF", reason: .checksum)])
        guard case .resubscribe(let messages) = stream.bookResync else {
            Issue.record("Kraken resyncs a book on the serving connection")
            return
        }
        #expect(messages("BTC/CHF").last == #"{"method":"subscribe","params":{"channel":"book","symbol":["BTC/CHF"],"depth":1000,"snapshot":true},"req_id":4}"#)
        #expect(decode(lines[3], stream, &table) == .ignored)
        #expect(decode(lines[0], stream, &table) == .data)
        #expect(table.book(index)?.isSynced == true)
    }

    @Test func krakenSmallBookCutToItsDepth() throws {
        // Depth 10: a snapshot of 12 levels keeps the best 10 (Kraken's rule), and the checksum covers them.
        let stream = try #require(KrakenStream().keepingBooks(levels: 5))
        var table = StreamMarketTable(pairs: [MarketPair(base: "BTC", quote: "USD")], marketID: stream.marketID, depthLevels: 5)
        let asks = (0..<12).map { #"{"price":\#(45285 + $0).5,"qty":0.00100000}"# }.joined(separator: ",")
        let bids = (0..<12).map { #"{"price":\#(45283 - $0).5,"qty":1.50000000}"# }.joined(separator: ",")
        // Kraken's rule by hand: asks "452855100000", …; bids "452835150000000", …, best 10 each.
        let text = (0..<10).map { "\(45285 + $0)5100000" }.joined() + (0..<10).map { "\(45283 - $0)5150000000" }.joined()
        let checksum = Array(text.utf8).withUnsafeBytes { CRC32.checksum($0) }
        let frame = #"{"channel":"book","type":"snapshot","data":[{"symbol":"BTC/USD","bids":[\#(bids)],"asks":[\#(asks)],"checksum":\#(checksum)}]}"#
        #expect(decode(frame, stream, &table) == .data)
        let book = try #require(table.book(0))
        #expect(book.isSynced)
        #expect(book.asks.count == 10 && book.asks.best?.price == 45285.5)
        #expect(book.at == Self.t0)  // no timestamp in the snapshot: the receive time
    }

    @Test func krakenTimesReadAsRFC3339() {
        func date(_ text: String) -> Date? { Array(text.utf8).withUnsafeBytes { KrakenTime.date($0) } }
        #expect(date("2023-10-06T17:35:55.440295Z").map { abs($0.timeIntervalSince1970 - 1_696_613_755.440295) < 1e-6 } == true)
        #expect(date("1970-01-01T00:00:00Z") == Date(timeIntervalSince1970: 0))
        #expect(date("2024-02-29T12:00:00.5Z") == Date(timeIntervalSince1970: 1_709_208_000.5))
        #expect(date("2023-13-06T17:35:55Z") == nil)
        #expect(date("not a time at all, no") == nil)
    }
}

/// The text-level book behind the three checksums, level by level.
@Suite struct TextBooksTests {
    func crc(_ text: String) -> UInt32 { Array(text.utf8).withUnsafeBytes { CRC32.checksum($0) } }

    func set(_ books: inout TextBooks, bid: Bool, _ price: String, _ size: String, losesDropped: Bool = true) -> Bool {
        Array(price.utf8).withUnsafeBytes { priceText in
            Array(size.utf8).withUnsafeBytes { sizeText in
                books.set(
                    0, bid: bid, price: Double(price) ?? .nan, size: Double(size) ?? .nan, priceText: priceText, sizeText: sizeText,
                    losesDropped: losesDropped)
            }
        }
    }

    @Test func levelsBeyondTheCapacityAreCutAndACutSideBelowTheCheckedDepthCannotBeVerified() {
        var table = StreamMarketTable(pairs: [MarketPair(base: "BTC", quote: "USDT")], marketID: { _ in "BTC-USDT" }, depthLevels: 5)
        var books = TextBooks.adopt(from: &table, capacity: 30)
        defer { books.release(into: &table) }
        #expect(!books.isLive(0))  // no snapshot yet
        books.beginSnapshot(0)
        #expect(books.isLive(0))
        for level in 0..<40 {
            #expect(set(&books, bid: true, "\(100 - level)", "1"))
            #expect(set(&books, bid: false, "\(101 + level)", "2"))
        }
        #expect(books.count(0, bid: true) == 30 && books.count(0, bid: false) == 30)
        #expect(books.verifiable(0, depth: 25))
        // The interleaved checksum over the kept top 25, as OKX and Bitget write it.
        let text = (0..<25).map { "\(100 - $0):1:\(101 + $0):2" }.joined(separator: ":")
        #expect(books.interleavedChecksum(0) == crc(text))
        // Six best bids go: 24 left of a side that was cut, so level 25 is unknown.
        for level in 0..<6 { #expect(set(&books, bid: true, "\(100 - level)", "0")) }
        #expect(books.count(0, bid: true) == 24)
        #expect(!books.verifiable(0, depth: 25))
        // A new snapshot forgets the cut.
        books.beginSnapshot(0)
        #expect(set(&books, bid: true, "99", "1"))
        #expect(books.verifiable(0, depth: 25))
    }

    @Test func krakenDigitsDropTheDecimalPointAndLeadingZeros() {
        var table = StreamMarketTable(pairs: [MarketPair(base: "BTC", quote: "USD")], marketID: { _ in "BTC/USD" }, depthLevels: 5)
        var books = TextBooks.adopt(from: &table, capacity: 10)
        defer { books.release(into: &table) }
        books.beginSnapshot(0)
        // Kraken's own examples: "0.05000" with "0.00000304" → "5000304"; "45285.2" with "0.00100000" → "452852100000".
        #expect(set(&books, bid: false, "0.05000", "0.00000304", losesDropped: false))
        #expect(books.krakenChecksum(0) == crc("5000304"))
        #expect(set(&books, bid: true, "0.04940", "0.00100000", losesDropped: false))
        #expect(books.krakenChecksum(0) == crc("5000304" + "4940100000"))
        books.beginSnapshot(0)
        #expect(set(&books, bid: false, "45285.2", "0.00100000", losesDropped: false))
        #expect(books.krakenChecksum(0) == crc("452852100000"))
    }

    @Test func unusableLevelsAreRefused() {
        var table = StreamMarketTable(pairs: [MarketPair(base: "BTC", quote: "USD")], marketID: { _ in "BTC/USD" }, depthLevels: 5)
        var books = TextBooks.adopt(from: &table, capacity: 10)
        defer { books.release(into: &table) }
        books.beginSnapshot(0)
        #expect(!set(&books, bid: true, "0", "1"))
        #expect(!set(&books, bid: true, "-1", "1"))
        #expect(!set(&books, bid: true, "100", "nan"))
        #expect(!set(&books, bid: true, "100.00000000000000000001", "1"))  // longer than a slot holds
        #expect(set(&books, bid: true, "100", "0"))  // removing an unknown level is fine
        #expect(books.count(0, bid: true) == 0)
    }
}
