import Foundation
import MarketAlertCore
@testable import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// The one-scan walks (`walkMembers`, `walkElements`, `pair`) must read what the scanning walks read, refuse
/// what they refuse, and go on where the body's own walk of a container ended.
@Suite struct OneScanWalkTests {
    /// Every scalar of `text` in document order, with its key path, by the scanning walks.
    static func scanned(_ json: JSONBytes, _ value: JSONBytes.Value, _ path: String, into out: inout [String]) {
        switch value.kind {
        case .object:
            json.members(ofObjectAt: value.start) { start, end, member in
                scanned(json, member, path + "." + Self.text(json, start, end), into: &out)
                return true
            }
        case .array:
            var index = 0
            json.elements(ofArrayAt: value.start) { element in
                scanned(json, element, path + "[\(index)]", into: &out)
                index += 1
                return true
            }
        default:
            out.append(path + "=" + json.string(value))
        }
    }

    /// The same by the one-scan walks, each container walked by its body (`.walked`); nil when a walk fails.
    static func walked(_ json: JSONBytes, start: Int, kind: JSONBytes.Kind, _ path: String, into out: inout [String]) -> Int? {
        switch kind {
        case .object:
            return json.walkMembers(ofObjectAt: start) { start, end, member in
                let key = Self.text(json, start, end)
                if member.kind == .object || member.kind == .array { return .walked(walked(json, start: member.start, kind: member.kind, path + "." + key, into: &out)) }
                out.append(path + "." + key + "=" + json.string(member))
                return .next
            }
        case .array:
            var index = 0
            return json.walkElements(ofArrayAt: start) { element in
                defer { index += 1 }
                if element.kind == .object || element.kind == .array { return .walked(walked(json, start: element.start, kind: element.kind, path + "[\(index)]", into: &out)) }
                out.append(path + "[\(index)]=" + json.string(element))
                return .next
            }
        default:
            return nil
        }
    }

    static func text(_ json: JSONBytes, _ start: Int, _ end: Int) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: json.bytes[start..<end]), as: UTF8.self)
    }

    static func compare(_ text: String) -> (scanned: [String], walked: [String], end: Int?, count: Int) {
        Array(text.utf8).withUnsafeBytes { bytes in
            let json = JSONBytes(bytes)
            guard let root = json.root, let (value, _) = json.value(at: root) else { return ([], [], nil, bytes.count) }
            var scannedOut: [String] = []
            var walkedOut: [String] = []
            scanned(json, value, "$", into: &scannedOut)
            let end = walked(json, start: root, kind: value.kind, "$", into: &walkedOut)
            return (scannedOut, walkedOut, end, bytes.count)
        }
    }

    @Test(arguments: [
        #"{"arg":{"channel":"books","instId":"BTC-USDT"},"action":"update","data":[{"asks":[["8.8","96","0","2"],["8.9","1","0","1"]],"bids":[],"ts":"1","checksum":-85}]}"#,
        #"{"type":"orderbook","code":"KRW-BTC","orderbook_units":[{"ask_price":1.5e8,"bid_price":149999000,"ask_size":0.1,"bid_size":0.2},{}],"level":0}"#,
        #" [ [ 1 , "a\"b" , true , null , false ] , { } , [ ] , -0.5e-3 ] "#,
    ])
    func readsWhatTheScanningWalksRead(_ text: String) {
        let result = Self.compare(text)
        #expect(!result.scanned.isEmpty)
        #expect(result.walked == result.scanned)
        #expect(result.end == text.utf8.count - (text.hasSuffix(" ") ? 1 : 0))
    }

    @Test(arguments: [
        #"{"data":[{"asks":[["8.8","96"],["8.9" "1"]]}]}"#,  // a missing comma deep inside
        #"{"data":[{"asks":[["8.8","96"],["8.9","1"]]}"#,    // cut short
        #"{"data":[{"asks":[["8.8","96",],["8.9","1"]]}]}"#, // a trailing comma
        #"{"data":[{"asks":[["8.8",tru]]}]}"#,               // a bad literal
    ])
    func refusesWhatTheScanningWalksRefuse(_ text: String) {
        Array(text.utf8).withUnsafeBytes { bytes in
            let json = JSONBytes(bytes)
            #expect(json.value(at: 0) == nil)
            var out: [String] = []
            #expect(Self.walked(json, start: 0, kind: .object, "$", into: &out) == nil)
            // Skipped rather than walked, the container is scanned by `value(at:)`: refused too.
            #expect(json.walkMembers(ofObjectAt: 0) { _, _, _ in .next } == nil)
        }
    }

    @Test func stopEndsTheWalkAndSkippingGoesOnAfterTheContainer() {
        let text = #"{"a":[[1,2],[3,4]],"b":{"c":[5]},"d":6}"#
        Array(text.utf8).withUnsafeBytes { bytes in
            let json = JSONBytes(bytes)
            var keys: [String] = []
            let end = json.walkMembers(ofObjectAt: 0) { start, end, _ in
                keys.append(Self.text(json, start, end))
                return .next
            }
            #expect(keys == ["a", "b", "d"])
            #expect(end == bytes.count)
            var seen = 0
            #expect(json.walkMembers(ofObjectAt: 0) { _, _, _ in seen += 1; return seen == 2 ? .stop : .next } == nil)
            #expect(seen == 2)
            // `pair`: the first two elements of a level and the index after it; nil for what is not an array.
            var levels: [(first: String, second: String, end: Int)?] = []
            _ = json.walkMembers(ofObjectAt: 0) { _, _, value in
                guard value.kind == .array else {
                    levels.append(json.pair(value).map { (json.string($0.first), json.string($0.second), $0.end) })
                    return .next
                }
                return .walked(json.walkElements(ofArrayAt: value.start) { level in
                    let pair = json.pair(level)
                    levels.append(pair.map { (json.string($0.first), json.string($0.second), $0.end) })
                    return pair.map { .walked($0.end) } ?? .stop
                })
            }
            #expect(levels.count == 4)
            #expect(levels[0]?.first == "1" && levels[0]?.second == "2" && levels[0]?.end == 11)
            #expect(levels[1]?.first == "3" && levels[1]?.second == "4" && levels[1]?.end == 17)
            #expect(levels[2] == nil && levels[3] == nil)  // the object "b" and the number "d"
        }
    }
}

/// `TextBooks.publish` writes only the levels from the first that differs: after every recorded message the
/// market's `OrderBook` must still be exactly the kept text levels' top (as the full rewrite made it).
@Suite struct TextBooksPublishTests {
    static let t0 = Date(timeIntervalSince1970: 0)

    func replay(_ stream: some ExchangeStreamProtocol, pairs: Set<MarketPair>, file: String, levels: Int, capacity: Int, rounds: Int) throws {
        var table = StreamMarketTable(pairs: pairs, marketID: stream.marketID, depthLevels: levels)
        let lines = try Fixtures.string(file).split(separator: "\n").map(String.init)
        var checked = 0
        for round in 0..<rounds {
            for (number, line) in lines.enumerated() {
                table.beginFrame()
                let frame = Array(line.utf8).withUnsafeBytes { stream.decode($0, into: &table, receivedAt: Self.t0) }
                #expect(frame == .data, "round \(round), frame \(number)")
                for index in table.touched {
                    let book = try #require(table.book(index))
                    #expect(book.isSynced, "round \(round), frame \(number)")
                    var texts = TextBooks.adopt(from: &table, capacity: capacity)
                    for bid in [true, false] {
                        let kept = min(book.levels * 2, texts.count(index, bid: bid))
                        let expected = (0..<kept).map { level in texts.withLevel(index, bid: bid, level) { price, size, _, _ in [price, size] } }
                        let side = bid ? book.bids : book.asks
                        #expect(zip(side.prices, side.sizes).map { [$0, $1] } == expected, "round \(round), frame \(number), bid \(bid)")
                    }
                    texts.release(into: &table)
                    let quote = table.quote(index, exchange: stream.exchange, receivedAt: Self.t0)
                    #expect(quote.bid?.value == book.bids.best?.price && quote.ask?.value == book.asks.best?.price)
                    checked += 1
                }
            }
        }
        #expect(checked >= lines.count * rounds)
    }

    @Test func okxBooksAfterEveryMessage() throws {
        let stream = try #require(OKXStream().keepingBooks(levels: 20))
        try replay(stream, pairs: [MarketPair(base: "BTC", quote: "USDT")], file: "streams/okx/books-BTC-USDT-20220513-cryptofeed.jsonl",
                   levels: 20, capacity: OKXStyleBooks.capacity(levels: 20), rounds: 2)
    }

    @Test func bitgetBooksAfterEveryMessage() throws {
        let stream = try #require(BitgetStream().keepingBooks(levels: 10))
        try replay(stream, pairs: [MarketPair(base: "EOS", quote: "USDT")], file: "streams/bitget/books-EOSUSDT-20220407-cryptofeed-v1.jsonl",
                   levels: 10, capacity: OKXStyleBooks.capacity(levels: 10), rounds: 2)
    }

    @Test func krakenBooksAfterEveryMessage() throws {
        // Kept at 10 levels, where changes below the checksum's depth cut and refill the book.
        let stream = try #require(KrakenStream().keepingBooks(levels: 600))
        let pairs: Set<MarketPair> = [MarketPair(base: "BTC", quote: "CHF"), MarketPair(base: "GRT", quote: "ETH")]
        try replay(stream, pairs: pairs, file: "streams/kraken/book-v2-BTC-CHF-GRT-ETH-20210417-cryptofeed-v1.jsonl",
                   levels: 600, capacity: KrakenBook.depth(levels: 600), rounds: 1)
    }
}

/// Upbit and Bithumb pushes are applied where their units are walked when type, code and time come first (as
/// the exchanges send them), otherwise after the frame is read: the same book either way. A push that is not
/// well-formed JSON is still dropped before any of it is applied (`rootObject` reads the whole frame first).
@Suite struct UpbitBookInWalkTests {
    static let t0 = Date(timeIntervalSince1970: 0)
    let units = #"[{"ap":127.0,"bp":126.0,"as":2.5,"bs":1.5},{"ap":128.0,"bp":125.0,"as":3.0,"bs":4.0}]"#

    func decode(_ text: String, _ table: inout StreamMarketTable, _ stream: UpbitStream) -> StreamFrame {
        table.beginFrame()
        return Array(text.utf8).withUnsafeBytes { stream.decode($0, into: &table, receivedAt: Self.t0) }
    }

    @Test func unitsFirstOrLastGiveTheSameBook() throws {
        let stream = try #require(UpbitStream(ticket: "t").keepingBooks(levels: 5))
        var last = StreamMarketTable(pairs: [MarketPair(base: "LAMB", quote: "KRW")], marketID: stream.marketID, depthLevels: 5)
        var first = last
        #expect(decode(#"{"ty":"orderbook","cd":"KRW-LAMB","tms":1618678263000,"obu":\#(units),"st":"REALTIME"}"#, &last, stream) == .data)
        #expect(decode(#"{"obu":\#(units),"ty":"orderbook","tms":1618678263000,"cd":"KRW-LAMB"}"#, &first, stream) == .data)
        let book = try #require(last.book(0))
        #expect(book.isSynced && book.asks.prices == [127, 128] && book.bids.prices == [126, 125])
        #expect(book.asks.sizes == [2.5, 3.0] && book.bids.sizes == [1.5, 4.0])
        #expect(first.book(0) == book)
        #expect(book.at == Date(timeIntervalSince1970: 1_618_678_263))
        #expect(last.quote(0, exchange: .upbit, receivedAt: Self.t0).bid?.value == 126)
    }

    /// The push is read in the one scan that checks it, so a push found malformed part-way has set some of
    /// its units already: it is dropped and its book is not used (out of sync) until the next good push,
    /// which replaces it whole. No price of a malformed push ever reaches a premium.
    @Test func aMalformedPushIsDroppedAndItsBookUnusedUntilTheNextGoodPush() throws {
        let stream = try #require(UpbitStream(ticket: "t").keepingBooks(levels: 5))
        var table = StreamMarketTable(pairs: [MarketPair(base: "LAMB", quote: "KRW")], marketID: stream.marketID, depthLevels: 5)
        let good = #"{"ty":"orderbook","cd":"KRW-LAMB","tms":1618678263000,"obu":\#(units)}"#
        #expect(decode(good, &table, stream) == .data)
        let held = try #require(table.book(0))
        #expect(held.isSynced)
        // A missing comma in the second unit, a push cut short inside its units, and a push whose units are
        // whole but whose object is not closed.
        let bad = [
            #"{"ty":"orderbook","cd":"KRW-LAMB","tms":1618678264000,"obu":[{"ap":126.5,"bp":126.0,"as":2.5,"bs":1.5},{"ap":128.0 "bp":125.0}]}"#,
            #"{"ty":"orderbook","cd":"KRW-LAMB","tms":1618678264000,"obu":[{"ap":126.5,"bp":126.0,"as":2.5,"bs":1.5},{"ap":12"#,
            #"{"ty":"orderbook","cd":"KRW-LAMB","tms":1618678264000,"obu":[{"ap":126.5,"bp":126.0,"as":2.5,"bs":1.5}]"#,
        ]
        for text in bad {
            #expect(decode(text, &table, stream) == .dropped(.malformed), "\(text)")
            let book = try #require(table.book(0))
            #expect(!book.isSynced && !book.isUsable(now: Self.t0, maxAge: 3600), "\(text)")
            #expect(decode(good, &table, stream) == .data)
            #expect(table.book(0)?.isSynced == true && table.book(0)?.asks.prices == held.asks.prices && table.book(0)?.bids.prices == held.bids.prices)
        }
    }
}
