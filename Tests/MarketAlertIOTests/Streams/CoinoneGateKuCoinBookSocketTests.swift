import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Synchronization
import Testing

/// Coinone, Gate and KuCoin books over real sockets on 127.0.0.1: a local WebSocket server answering as the
/// exchange does (its wire kit's persona), and for Gate and KuCoin a local REST server answering the
/// snapshot path with the recorded snapshot. The transport fetches the snapshot itself, seeds the book and
/// applies the diffs kept meanwhile; a gap and a crossed diff make it fetch a fresh snapshot; after a
/// reconnect the book is rebuilt again; an oversized snapshot keeps twice the levels read. Coinone sends the
/// whole book each push: a crossed one is refused until the next, and a reconnect's subscription brings it.
@Suite(.serialized) struct CoinoneGateKuCoinBookSocketTests {
    static let start = Date(timeIntervalSince1970: 1_750_000_000)

    static func source(_ stream: some ExchangeStreamProtocol, _ url: URL, _ clock: ManualClock, rest: URL? = nil) -> any StreamSource {
        WebSocketStreamSource(protocol: stream, url: url, clock: clock, random: { 0.5 }, depthLevels: 20, restBaseURL: rest)
    }

    /// Drops the connection and moves virtual time until the stream is live on a second one.
    static func reconnect(_ server: WebSocketTestServer, _ clock: ManualClock, _ log: UpdateLog) async throws {
        try await reconnectOnVirtualTime(server, clock, log)
    }

    /// A snapshot body of `count` levels a side around 1000 (Gate's shape).
    static func oversized(_ count: Int, id: Int) -> String {
        let bids = (0..<count).map { #"["\#(1000 - $0)","1"]"# }.joined(separator: ",")
        let asks = (0..<count).map { #"["\#(1001 + $0)","1"]"# }.joined(separator: ",")
        return #"{"id":\#(id),"asks":[\#(asks)],"bids":[\#(bids)]}"#
    }

    @Test func gateSnapshotOverRESTThenUpdatesAGapACrossedUpdateAReconnectAndAnOversizedSnapshot() async throws {
        let server = try await WebSocketTestServer(persona: StreamPersonas.of(.gate)(StreamPersonaKnobs()))
        let rest = try await MockHTTPServer()
        let snapshot = try Fixtures.string(GateKuCoinBookDecodeTests.gateSnapshot)
        let body = Mutex(snapshot)
        rest.route("/api/v4/spot/order_book") { _ in .json(body.withLock { $0 }) }
        let clock = ManualClock(now: Self.start)
        let stream = try #require(GateStream().keepingBooks(levels: 20))
        let log = UpdateLog()
        let task = DepthBookSocketTests.run(
            Self.source(stream, server.url("/ws/v4/"), clock, rest: rest.baseURL), pairs: [GateKuCoinBookDecodeTests.gatePair], log: log)
        defer { task.cancel() }
        try await pollUntil("live") { log.all.contains(.live) }
        #expect(server.connections.first?.texts.contains { $0.contains(#""channel":"spot.order_book_update","event":"subscribe","payload":["OMG_USDT","100ms"]"#) } == true)

        for diff in try GateKuCoinBookDecodeTests.lines(GateKuCoinBookDecodeTests.gateDiffs) { server.push(diff) }
        try await pollUntil("a synced book with every recorded update") {
            DepthBookSocketTests.books(log, "OMG_USDT").last.map { $0.isSynced && $0.bids.best?.price == 7.899 && $0.asks.best?.price == 7.927 } == true
        }
        #expect(rest.requests(to: "/api/v4/spot/order_book").map(\.query) == ["currency_pair=OMG_USDT&limit=100&with_id=true"])

        // A gap: the book is handed on unsynced and rebuilt from a fresh snapshot (now at 59231922).
        body.withLock { $0 = snapshot.replacingOccurrences(of: #""id":59231869"#, with: #""id":59231922"#) }
        server.push(GateKuCoinBookDecodeTests.gateDiff(59_231_923, 59_231_923, bids: #"[["7.9","5"]]"#))
        try await pollUntil("rebuilt after the gap") {
            rest.requests(to: "/api/v4/spot/order_book").count == 2
                && DepthBookSocketTests.books(log, "OMG_USDT").last.map { $0.isSynced && $0.bids.best?.price == 7.9 } == true
        }
        #expect(DepthBookSocketTests.books(log, "OMG_USDT").contains { !$0.isSynced })

        // A crossed update: refused, the book unusable at once, a third snapshot rebuilds it.
        server.push(GateKuCoinBookDecodeTests.gateDiff(59_231_924, 59_231_924, bids: #"[["8.5","1"]]"#))
        try await pollUntil("rebuilt after the crossed update") {
            rest.requests(to: "/api/v4/spot/order_book").count == 3
                && DepthBookSocketTests.books(log, "OMG_USDT").last.map { $0.isSynced && $0.bids.best?.price == 7.898 } == true
        }

        // A reconnect: the new connection subscribes again; a gap across it is rebuilt from an oversized
        // snapshot, of which twice the levels read are kept.
        try await Self.reconnect(server, clock, log)
        #expect(server.connections.last?.texts.contains { $0.contains("spot.order_book_update") } == true)
        body.withLock { $0 = Self.oversized(500, id: 59_231_950) }
        server.push(GateKuCoinBookDecodeTests.gateDiff(59_231_950, 59_231_951, asks: #"[["1000.5","3"]]"#))
        try await pollUntil("rebuilt after the reconnect") {
            DepthBookSocketTests.books(log, "OMG_USDT").last.map { $0.isSynced && $0.asks.best?.price == 1000.5 } == true
        }
        let book = try #require(DepthBookSocketTests.books(log, "OMG_USDT").last)
        #expect(book.bids.count == 40 && book.asks.count == 40 && book.bids.prices.first == 1000)
        #expect(rest.requests(to: "/api/v4/spot/order_book").count == 4)
        task.cancel()
        await task.value
        await server.shutdown()
        await rest.shutdown()
    }

    @Test func kucoinSnapshotOverRESTThenMessagesAGapAReconnectAndAnOversizedSnapshot() async throws {
        let server = try await WebSocketTestServer(persona: StreamPersonas.of(.kucoin)(StreamPersonaKnobs()))
        let rest = try await MockHTTPServer()
        let snapshot = try Fixtures.string(GateKuCoinBookDecodeTests.kucoinSnapshot)
        let body = Mutex(snapshot)
        rest.route(KuCoinStream.snapshotPath) { _ in .json(body.withLock { $0 }) }
        let clock = ManualClock(now: Self.start)
        let stream = try #require(KuCoinStream().keepingBooks(levels: 20))
        let log = UpdateLog()
        let task = DepthBookSocketTests.run(
            Self.source(stream, server.url("/"), clock, rest: rest.baseURL), pairs: [GateKuCoinBookDecodeTests.kucoinPair], log: log)
        defer { task.cancel() }
        try await pollUntil("live") { log.all.contains(.live) }
        #expect(server.connections.first?.texts.contains { $0.contains(#""topic":"/market/level2:BCHSV-USDT""#) } == true)

        for message in try GateKuCoinBookDecodeTests.lines(GateKuCoinBookDecodeTests.kucoinDiffs) { server.push(message) }
        try await pollUntil("a synced book with every recorded message") {
            DepthBookSocketTests.books(log, "BCHSV-USDT").last.map { $0.isSynced && $0.bids.best?.price == 242.646 && $0.asks.best?.price == 242.951 } == true
        }
        #expect(rest.requests(to: KuCoinStream.snapshotPath).map(\.query) == ["symbol=BCHSV-USDT"])

        func change(_ first: Int, _ final: Int, bids: String = "[]", asks: String = "[]") -> String {
            #"{"data":{"sequenceStart":\#(first),"symbol":"BCHSV-USDT","changes":{"asks":\#(asks),"bids":\#(bids)},"sequenceEnd":\#(final)},"subject":"trade.l2update","topic":"/market/level2:BCHSV-USDT","type":"message"}"#
        }
        // A gap (1613277183934 lost): rebuilt from a snapshot at 1613277183934, the kept message applied on it.
        body.withLock { $0 = snapshot.replacingOccurrences(of: #""sequence":"1613277183892""#, with: #""sequence":"1613277183934""#) }
        server.push(change(1_613_277_183_935, 1_613_277_183_935, bids: #"[["242.7","1","1613277183935"]]"#))
        try await pollUntil("rebuilt after the gap") {
            rest.requests(to: KuCoinStream.snapshotPath).count == 2
                && DepthBookSocketTests.books(log, "BCHSV-USDT").last.map { $0.isSynced && $0.bids.best?.price == 242.7 } == true
        }
        #expect(DepthBookSocketTests.books(log, "BCHSV-USDT").contains { !$0.isSynced })

        // A reconnect, then a gap on the new connection: rebuilt from an oversized snapshot (500 levels a side).
        try await Self.reconnect(server, clock, log)
        #expect(server.connections.last?.texts.contains { $0.contains("/market/level2:BCHSV-USDT") } == true)
        let bids = (0..<500).map { #"["\#(200 - Double($0) / 10)","1"]"# }.joined(separator: ",")
        let asks = (0..<500).map { #"["\#(300 + Double($0) / 10)","1"]"# }.joined(separator: ",")
        body.withLock { $0 = #"{"code":"200000","data":{"time":1750000000000,"sequence":"1613277184000","bids":[\#(bids)],"asks":[\#(asks)]}}"# }
        server.push(change(1_613_277_184_000, 1_613_277_184_001, asks: #"[["299","2","1613277184001"]]"#))
        try await pollUntil("rebuilt after the reconnect") {
            DepthBookSocketTests.books(log, "BCHSV-USDT").last.map { $0.isSynced && $0.asks.best?.price == 299 } == true
        }
        let book = try #require(DepthBookSocketTests.books(log, "BCHSV-USDT").last)
        #expect(book.bids.count == 40 && book.asks.count == 40 && book.bids.prices.first == 200)
        #expect(rest.requests(to: KuCoinStream.snapshotPath).count == 3)
        task.cancel()
        await task.value
        await server.shutdown()
        await rest.shutdown()
    }

    static func coinonePush(_ id: Int, asks: [(String, String)], bids: [(String, String)]) -> String {
        func side(_ levels: [(String, String)]) -> String { levels.map { #"{"price":"\#($0.0)","qty":"\#($0.1)"}"# }.joined(separator: ",") }
        return #"{"response_type":"DATA","channel":"ORDERBOOK","data":{"quote_currency":"KRW","target_currency":"BTC","timestamp":1750000000000,"id":"\#(id)","asks":[\#(side(asks))],"bids":[\#(side(bids))]}}"#
    }

    @Test func coinoneWholeBookPushesACrossedPushAReconnectAndAnOversizedPush() async throws {
        let server = try await WebSocketTestServer(persona: StreamPersonas.of(.coinone)(StreamPersonaKnobs()))
        let clock = ManualClock(now: Self.start)
        let stream = try #require(CoinoneStream().keepingBooks(levels: 20))
        let log = UpdateLog()
        let task = DepthBookSocketTests.run(Self.source(stream, server.url("/"), clock), pairs: [MarketPair(base: "BTC", quote: "KRW")], log: log)
        defer { task.cancel() }
        try await pollUntil("live") { log.all.contains(.live) }
        #expect(server.connections.first?.texts.contains(#"{"request_type":"SUBSCRIBE","channel":"ORDERBOOK","topic":{"quote_currency":"KRW","target_currency":"BTC"}}"#) == true)

        server.push(try #require(try GateKuCoinBookDecodeTests.lines("streams/coinone/orderbook-KRW-BTC-ccxtsrc.jsonl").first))
        try await pollUntil("the recorded book") {
            DepthBookSocketTests.books(log, "BTC").last.map { $0.isSynced && $0.bids.best?.price == 58_292_000 && $0.asks.best?.price == 58_412_000 } == true
        }
        // A crossed push: the engine hears at once that the book is unusable; the next push replaces it.
        server.push(Self.coinonePush(1_705_288_918_649_002, asks: [("58200000", "1")], bids: [("58300000", "1")]))
        try await pollUntil("the crossed book handed on unsynced") { DepthBookSocketTests.books(log, "BTC").last?.isSynced == false }
        server.push(Self.coinonePush(1_705_288_918_649_003, asks: [("58400000", "1")], bids: [("58300000", "1")]))
        try await pollUntil("the next push") { DepthBookSocketTests.books(log, "BTC").last.map { $0.isSynced && $0.bids.best?.price == 58_300_000 } == true }
        #expect(server.connections.count == 1)

        // A reconnect subscribes the book again; an oversized push (200 levels a side) keeps 40 a side.
        try await Self.reconnect(server, clock, log)
        #expect(server.connections.last?.texts.contains { $0.contains(#""channel":"ORDERBOOK""#) } == true)
        let asks = (0..<200).map { ("\(58_400_000 + 1000 * $0)", "0.5") }
        let bids = (0..<200).map { ("\(58_300_000 - 1000 * $0)", "0.5") }
        server.push(Self.coinonePush(1_705_288_918_649_004, asks: asks, bids: bids), to: server.connections.last?.id)
        try await pollUntil("the oversized push") {
            DepthBookSocketTests.books(log, "BTC").last.map { $0.isSynced && $0.asks.count == 40 && $0.bids.count == 40 } == true
        }
        #expect(DepthBookSocketTests.books(log, "BTC").last?.bids.prices.last == 58_261_000)
        task.cancel()
        await task.value
        await server.shutdown()
    }
}
