import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertKit
import MarketAlertTestSupport
import Synchronization
import Testing

/// HTX, Bitfinex and Coinbase books on real sockets (127.0.0.1), each local server speaking the exchange's
/// protocol through its wire kit's persona (HTX's gzip frames, Bitfinex's numbered channels and `conf`,
/// Coinbase's subscriptions answer) and, for Coinbase, a local REST server answering `/products/<id>/book`.
@Suite(.serialized) struct HTXBitfinexCoinbaseBookSocketTests {
    static func streamCase(
        _ exchange: ExchangeID, path: String, pair: MarketPair, market: String, make: @escaping @Sendable (URL, ManualClock, StreamCounters) -> any StreamSource
    ) -> StreamCase {
        StreamCase(
            name: exchange.rawValue, exchange: exchange, path: path, pairs: [pair],
            makeSource: { url, clock, counters, _ in make(url, clock, counters) },
            persona: StreamPersonas.of(exchange), expectedTopics: [], topics: { _ in [] }, recorded: [], expected: [:],
            fresh: .text("{}"), freshMarket: market, freshExpected: StreamCase.Expected(), bad: [], keepalive: .serverPings)
    }

    static func book(_ frames: [Data], _ stream: some ExchangeStreamProtocol, pair: MarketPair, levels: Int) -> OrderBook? {
        var table = StreamMarketTable(pairs: [pair], marketID: stream.marketID, depthLevels: levels)
        for frame in frames {
            table.beginFrame()
            _ = frame.withUnsafeBytes { stream.decode($0, into: &table, receivedAt: Date(timeIntervalSince1970: 0)) }
        }
        return table.book(0)
    }

    /// The same levels, in sync (Bitfinex's books carry the receive time, which differs from the reference's).
    static func sameLevels(_ book: OrderBook?, _ expected: OrderBook) -> Bool {
        guard let book else { return false }
        return book.isSynced == expected.isSynced && book.bids == expected.bids && book.asks == expected.asks
    }

    // MARK: HTX

    @Test func htxDepthPushesACrossedPushAnOversizedFrameAndAReconnect() async throws {
        let stream = try #require(HTXStream().keepingBooks(levels: 20))
        let pair = MarketPair(base: "BOR", quote: "USDT")
        let recorded = try HTXCoinbaseBookDecodeTests.frames(HTXCoinbaseBookDecodeTests.htxFile).filter { frame in
            Self.book([frame], stream, pair: pair, levels: 20)?.isSynced == true
        }
        #expect(recorded.count == 8)
        let c = Self.streamCase(.htx, path: "/ws", pair: pair, market: "borusdt") { url, clock, counters in
            WebSocketStreamSource(protocol: stream, url: url, staleAfter: .seconds(30), clock: clock, counters: counters, random: { 0.5 }, depthLevels: 20)
        }
        try await withStream(c) { h in
            try await h.waitLive()
            #expect(h.server.connections[0].texts.contains(#"{"sub":"market.borusdt.depth.step0","id":"market.borusdt.depth.step0"}"#))
            for frame in recorded.prefix(4) { h.server.push(binary: frame) }
            let expected = try #require(Self.book(Array(recorded.prefix(4)), stream, pair: pair, levels: 20))
            try await h.waitFor("the fourth recorded push") { $0.latest("borusdt")?.depth == expected }

            // A crossed push: refused and handed on unusable at once; the next push is the resync (no request).
            let crossed = #"{"ch":"market.borusdt.depth.step0","ts":1618678090000,"tick":{"bids":[[720.5,1.0]],"asks":[[720.4,1.0]],"version":999999999999,"ts":1618678090000}}"#
            h.server.push(binary: HTXGzip.compress(crossed))
            try await h.waitFor("the crossed push refused") { $0.latest("borusdt")?.depth?.isSynced == false }
            #expect(h.counters.snapshot.dropped[.crossedBook] == 1)
            let later = #"{"ch":"market.borusdt.depth.step0","ts":1618678091000,"tick":{"bids":[[720.3,1.5]],"asks":[[720.4,1.0]],"version":1000000000000,"ts":1618678091000}}"#
            h.server.push(binary: HTXGzip.compress(later))
            try await h.waitFor("the next push") { $0.latest("borusdt")?.depth.map { $0.isSynced && $0.bids.best?.price == 720.3 } == true }

            // A gzip member that inflates beyond the decode limit is dropped; the book stands.
            h.server.push(binary: HTXGzip.compress(String(repeating: " ", count: StreamIntake.decodeLimit + 10) + "{}"))
            try await h.waitFor("the inflated bomb dropped") { $0.counters.snapshot.dropped[.malformed] == 1 }
            #expect(h.latest("borusdt")?.depth?.isSynced == true)
            #expect(h.server.connections.count == 1 && h.downs.isEmpty)

            // A frame over the limit is refused from its header and takes the connection down; the reconnect
            // subscribes the book again and its pushes are the book.
            h.server.push(binary: Data(repeating: 0x1F, count: StreamIntake.decodeLimit + 1))
            try await h.waitDown()
            try await h.advance(by: .seconds(1))
            try await h.waitLive(count: 2)
            #expect(h.server.connections[1].texts.contains { $0.contains("market.borusdt.depth.step0") })
            let fresh = try Self.renewed(recorded[7], version: 1_000_000_000_001, millis: 1_618_678_092_000)
            h.server.push(binary: fresh, to: h.server.connections[1].id)
            let last = try #require(Self.book([fresh], stream, pair: pair, levels: 20))
            #expect(last.isSynced)
            try await h.waitFor("the push on the new connection") { $0.latest("borusdt")?.depth == last }
        }
    }

    /// A recorded HTX push with its `version` and times replaced (newer than what the test sent before it).
    static func renewed(_ frame: Data, version: Int64, millis: Int64) throws -> Data {
        var scratch: [UInt8] = []
        let text = try #require(frame.withUnsafeBytes { HTXGzip.inflate($0, scratch: &scratch, limit: 1 << 20) { String(decoding: $0, as: UTF8.self) } })
        let renewed = text.replacingOccurrences(of: #""version":[0-9]+"#, with: "\"version\":\(version)", options: .regularExpression)
            .replacingOccurrences(of: #""ts":[0-9]+"#, with: "\"ts\":\(millis)", options: .regularExpression)
        return HTXGzip.compress(renewed)
    }

    // MARK: Bitfinex

    @Test func bitfinexChecksummedBookABadChecksumACrossingAnOversizedBookAndAReconnect() async throws {
        let stream = try #require(BitfinexStream().keepingBooks(levels: 20))
        let pair = MarketPair(base: "XRP", quote: "BTC")
        let channel = BitfinexWire.bookChannel("tXRPBTC")
        let lines = try DepthBookDecodeTests.lines(BitfinexBookDecodeTests.checksumFile).map { $0.replacingOccurrences(of: "81757", with: "\(channel)") }
        let c = Self.streamCase(.bitfinex, path: "/ws/2", pair: pair, market: "tXRPBTC") { url, clock, counters in
            WebSocketStreamSource(protocol: stream, url: url, staleAfter: .seconds(30), clock: clock, counters: counters, random: { 0.5 }, depthLevels: 20)
        }
        let expected = try #require(Self.book(lines.map { Data($0.utf8) }, stream, pair: pair, levels: 20))
        #expect(expected.isSynced)
        try await withStream(c) { h in
            try await h.waitLive()
            let texts = h.server.connections[0].texts
            #expect(texts.first == #"{"event":"conf","flags":131072}"#)
            #expect(texts.contains(#"{"event":"subscribe","channel":"book","symbol":"tXRPBTC","prec":"P0","freq":"F0","len":"25"}"#))
            for line in lines[2...4] { h.server.push(line) }
            try await h.waitFor("the checked book") { Self.sameLevels($0.latest("tXRPBTC")?.depth, expected) }

            // A checksum that cannot hold: unusable at once, and a replacement connection brings the book anew.
            h.server.push("[\(channel),\"cs\",12345]")
            try await h.waitFor("the book unusable") { $0.latest("tXRPBTC")?.depth?.isSynced == false }
            try await h.waitFor("a replacement connection subscribed") { h in
                h.server.connections.count == 2 && h.server.connections[1].texts.contains { $0.contains(#""channel":"book""#) }
            }
            let second = h.server.connections[1].id
            try await pollUntil("the replacement's book acknowledged") { h.server.connections[1].texts.count >= 3 }
            try await h.settle()
            h.server.push(lines[2], to: second)
            try await h.waitFor("the new connection's snapshot") { $0.latest("tXRPBTC")?.depth?.isSynced == true }
            h.server.push(lines[3], to: second)
            h.server.push(lines[4], to: second)
            try await h.waitFor("its change, checked") { Self.sameLevels($0.latest("tXRPBTC")?.depth, expected) }

            // A change that crosses the book: refused, unusable at once, and asked for again.
            h.server.push("[\(channel),[0.0000012,1,50]]", to: second)
            try await h.waitFor("the crossed book refused") { $0.latest("tXRPBTC")?.depth?.isSynced == false }
            #expect(h.counters.snapshot.dropped[.crossedBook] == 1)
            try await h.waitFor("another replacement subscribed") { h in
                h.server.connections.count == 3 && h.server.connections[2].texts.count >= 3
            }
            try await h.settle()

            // An oversized book (300 levels a side): Bitfinex keeps the client at `len` (25), and so does the
            // book; the checksum over them holds.
            let third = h.server.connections[2].id
            h.server.push(Self.bitfinexBook(channel: channel, levels: 300), to: third)
            h.server.push("[\(channel),\"cs\",\(Self.bitfinexChecksum())]", to: third)
            try await h.waitFor("the oversized book") { $0.latest("tXRPBTC")?.depth.map { $0.isSynced && $0.bids.count == 25 } == true }
            try await h.settle()
            #expect(h.latest("tXRPBTC")?.depth?.isSynced == true && h.server.connections.count == 3)

            // A frame over the limit takes the connection down; the reconnect subscribes again.
            h.server.push(String(repeating: " ", count: StreamIntake.decodeLimit + 1), to: third)
            try await h.waitDown()
            try await h.advance(by: .seconds(1))
            try await h.waitFor("a reconnect subscribed") { h in
                h.server.connections.count == 4 && h.server.connections[3].texts.count >= 3
            }
            try await h.settle()
            h.server.push(lines[2], to: h.server.connections[3].id)
            try await h.waitFor("the reconnect's snapshot") { $0.latest("tXRPBTC")?.depth.map { $0.isSynced && $0.bids.count == 18 } == true }
        }
    }

    /// A Bitfinex P0 snapshot of `levels` bids (1000, 999, …; 1.5 each) and asks (1001, 1002, …; -2.5 each).
    static func bitfinexBook(channel: Int, levels: Int) -> String {
        let bids = (0..<levels).map { "[\(1000 - $0),1,1.5]" }
        let asks = (0..<levels).map { "[\(1001 + $0),1,-2.5]" }
        return "[\(channel),[\((bids + asks).joined(separator: ","))]]"
    }

    /// Bitfinex's checksum of that book: top 25 interleaved `price:amount`, as sent, signed CRC-32.
    static func bitfinexChecksum() -> Int32 {
        let text = (0..<25).map { "\(1000 - $0):1.5:\(1001 + $0):-2.5" }.joined(separator: ":")
        return Int32(bitPattern: Array(text.utf8).withUnsafeBytes { CRC32.checksum($0) })
    }

    // MARK: Coinbase

    @Test func coinbaseRESTBookPolledOnHeartbeatsACrossedAnswerAndAReconnect() async throws {
        let rest = try await MockHTTPServer()
        let body = try Fixtures.string(HTXCoinbaseBookDecodeTests.coinbaseFile)
        let crossedBody = body.replacingOccurrences(of: #"["0.7901","450.0",1]"#, with: #"["0.7999","450.0",1]"#)
        let crossed = Mutex(false)
        rest.route("/products/SKL-USD/book") { _ in .json(crossed.withLock { $0 } ? crossedBody : body) }
        let stream = try #require(CoinbaseStream().keepingBooks(levels: 20))
        let pair = MarketPair(base: "SKL", quote: "USD")
        let c = Self.streamCase(.coinbase, path: "/", pair: pair, market: "SKL-USD") { url, clock, counters in
            WebSocketStreamSource(
                protocol: stream, url: url, staleAfter: .seconds(30), clock: clock, counters: counters, random: { 0.5 }, depthLevels: 20,
                restBaseURL: rest.baseURL)
        }
        let heartbeat = #"{"type":"heartbeat","last_trade_id":1568267,"product_id":"SKL-USD","sequence":201390050,"time":"2021-04-17T16:43:38.000000Z"}"#
        defer { Task { await rest.shutdown() } }
        try await withStream(c) { h in
            try await h.waitLive()
            h.server.push(heartbeat)
            try await h.waitFor("the REST book") { $0.latest("SKL-USD")?.depth?.isSynced == true }
            #expect(rest.requests(to: "/products/SKL-USD/book").map(\.query) == ["level=2"])
            #expect(h.latest("SKL-USD")?.depth?.bids.best?.price == 0.7901)
            // Within the interval no second request; after it, one, with the book in use all along.
            h.server.push(heartbeat)
            try await h.settle()
            #expect(rest.requests(to: "/products/SKL-USD/book").count == 1)
            let before = h.quotes.count
            try await h.advance(by: .seconds(5))
            h.server.push(heartbeat)
            try await pollUntil("the second poll") { rest.requests(to: "/products/SKL-USD/book").count == 2 }
            try await h.settle()
            #expect(h.quotes.dropFirst(before).allSatisfy { $0.depth?.isSynced == true })

            // A crossed answer is refused (the book unusable) and fetched again a second later.
            crossed.withLock { $0 = true }
            try await h.advance(by: .seconds(5))
            h.server.push(heartbeat)
            try await h.waitFor("the crossed answer refused") { $0.latest("SKL-USD")?.depth?.isSynced == false }
            crossed.withLock { $0 = false }
            // The refetch sleeps a second on the clock: advance only once it does, or the advance can pass first.
            try await h.clock.waitForSleeper(ClockLabel("book snapshot coinbase"))
            try await h.advance(by: .seconds(1))
            try await h.waitFor("fetched again") { $0.latest("SKL-USD")?.depth?.isSynced == true }
            #expect(rest.requests(to: "/products/SKL-USD/book").count == 4)

            // A reconnect leaves the REST book as it is; polling goes on on the new connection's heartbeats.
            h.server.closeAbruptly()
            try await h.waitDown()
            try await h.advance(by: .seconds(1))
            try await h.waitLive(count: 2)
            try await h.advance(by: .seconds(5))
            h.server.push(heartbeat, to: h.server.connections[1].id)
            try await pollUntil("a poll after the reconnect") { rest.requests(to: "/products/SKL-USD/book").count == 5 }
        }
    }
}
