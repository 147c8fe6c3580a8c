import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Synchronization
import Testing

/// v3 books over real sockets on 127.0.0.1: a local WebSocket server speaking the exchange's stream, and for
/// Binance a local REST server answering `/api/v3/depth` with the recorded snapshot. The transport fetches
/// the snapshot itself, seeds the book, applies the diffs buffered meanwhile; a gap is counted and rebuilt
/// from a fresh snapshot; a reconnect keeps the book rebuilding. Bybit's gap is rebuilt by unsubscribing and
/// subscribing that market's book on the same connection.
@Suite(.serialized) struct DepthBookSocketTests {
    static let start = Date(timeIntervalSince1970: 1_750_000_000)

    /// Acks Binance's SUBSCRIBE (`{"result":null,"id":N}`) and records nothing else.
    static let binancePersona: WebSocketTestServer.Persona = { text, _ in
        guard let object = StreamPersonas.object(text), let id = object["id"] as? Int else { return [] }
        return [.text(#"{"result":null,"id":\#(id)}"#)]
    }

    /// Acks Bybit's subscribe and unsubscribe requests by their `req_id`.
    static let bybitPersona: WebSocketTestServer.Persona = { text, _ in
        guard let object = StreamPersonas.object(text), let op = object["op"] as? String, let id = object["req_id"] as? String else { return [] }
        return [.text(#"{"success":true,"ret_msg":"","conn_id":"c1","req_id":"\#(id)","op":"\#(op)"}"#)]
    }

    static func books(_ log: UpdateLog, _ market: String) -> [OrderBook] {
        log.all.flatMap { update -> [OrderBook] in
            guard case .quotes(let quotes) = update else { return [] }
            return quotes.filter { $0.market == market }.compactMap(\.depth)
        }
    }

    static func run(_ source: some StreamSource, pairs: Set<MarketPair>, log: UpdateLog) -> Task<Void, Never> {
        Task { await source.run(pairs: pairs) { log.append($0) } }
    }

    @Test func binanceSnapshotOverRESTThenDiffsThenAGapThenAReconnect() async throws {
        let server = try await WebSocketTestServer(persona: Self.binancePersona)
        let rest = try await MockHTTPServer()
        let snapshot = try Fixtures.string("streams/binance/depth-snapshot-NKNUSDT-20211012-cryptofeed.json")
        let lastUpdate = Mutex(499_869_752)
        rest.route("/api/v3/depth") { _ in
            let id = lastUpdate.withLock { $0 }
            return .json(snapshot.replacingOccurrences(of: #""lastUpdateId":499869752"#, with: #""lastUpdateId":\#(id)"#))
        }
        let clock = ManualClock(now: Self.start)
        let stream = try #require(BinanceStream().keepingBooks(levels: 20))
        let source = WebSocketStreamSource(
            protocol: stream, url: server.url("/ws"), clock: clock, random: { 0.5 }, depthLevels: 20, restBaseURL: rest.baseURL)
        let log = UpdateLog()
        let task = Self.run(source, pairs: [MarketPair(base: "NKN", quote: "USDT")], log: log)
        defer { task.cancel() }
        try await pollUntil("live") { log.all.contains(.live) }
        #expect(server.connections.first?.texts.first?.contains("nknusdt@depth@100ms") == true)

        // The recorded diffs: the first asks for the snapshot; the book is seeded and they are applied.
        for diff in try DepthBookDecodeTests.lines("streams/binance/depth100ms-NKNUSDT-20211012-cryptofeed.jsonl") { server.push(diff) }
        try await pollUntil("a synced book with every recorded diff") {
            Self.books(log, "NKNUSDT").last.map { $0.isSynced && $0.bids.best?.price == 0.3521 && $0.asks.best?.price == 0.3525 } == true
        }
        let fetched = rest.requests(to: "/api/v3/depth")
        #expect(fetched.count == 1)
        #expect(fetched.first?.query == "symbol=NKNUSDT&limit=100")

        // A gap: the book is handed on unsynced, and a fresh snapshot (now at 499869814) rebuilds it.
        lastUpdate.withLock { $0 = 499_869_814 }
        server.push(DepthBookDecodeTests.diff(499_869_814, 499_869_815, bids: #"[["0.35220000","7"]]"#))
        try await pollUntil("the second snapshot") { rest.requests(to: "/api/v3/depth").count == 2 }
        try await pollUntil("the book rebuilt") {
            Self.books(log, "NKNUSDT").last.map { $0.isSynced && $0.bids.best?.price == 0.3522 } == true
        }
        #expect(Self.books(log, "NKNUSDT").contains { !$0.isSynced })  // the engine was told in between

        // The connection drops: the stream reconnects (virtual backoff) and resubscribes; a diff in order
        // applies on the kept book, and a gap after the reconnect is rebuilt again.
        try await reconnectOnVirtualTime(server, clock, log)
        lastUpdate.withLock { $0 = 499_869_900 }
        server.push(DepthBookDecodeTests.diff(499_869_900, 499_869_901, asks: #"[["0.35240000","3"]]"#))
        try await pollUntil("rebuilt after the reconnect") {
            Self.books(log, "NKNUSDT").last.map { $0.isSynced && $0.asks.best?.price == 0.3524 } == true
        }
        #expect(rest.requests(to: "/api/v3/depth").count == 3)
        task.cancel()
        await task.value
        await server.shutdown()
        await rest.shutdown()
    }

    @Test func bybitGapResubscribesTheMarketsBookOnTheSameConnection() async throws {
        let server = try await WebSocketTestServer(persona: Self.bybitPersona)
        let clock = ManualClock(now: Self.start)
        let stream = try #require(BybitStream().keepingBooks(levels: 20))
        let source = WebSocketStreamSource(protocol: stream, url: server.url("/v5/public/spot"), clock: clock, random: { 0.5 }, depthLevels: 20)
        let log = UpdateLog()
        let task = Self.run(source, pairs: [MarketPair(base: "BTC", quote: "USDT")], log: log)
        defer { task.cancel() }
        try await pollUntil("live") { log.all.contains(.live) }
        let frames = try DepthBookDecodeTests.lines("streams/bybit/orderbook50-BTCUSDT-docs.jsonl")
        server.push(frames[0])
        server.push(frames[1])
        try await pollUntil("a synced book") {
            Self.books(log, "BTCUSDT").last.map { $0.isSynced && $0.asks.sizes.first == 78.857 } == true
        }
        server.push(frames[1].replacingOccurrences(of: #""u":13079593"#, with: #""u":13079595"#))
        try await pollUntil("unsubscribe and subscribe again") {
            let texts = server.connections.first?.texts ?? []
            return texts.contains { $0.contains(#""op":"unsubscribe""#) && $0.contains("orderbook.50.BTCUSDT") }
                && texts.contains { $0.contains(#""req_id":"resync-BTCUSDT""#) }
        }
        #expect(server.connections.count == 1)
        #expect(Self.books(log, "BTCUSDT").last?.isSynced == false)
        // The subscription's snapshot rebuilds it.
        server.push(frames[0].replacingOccurrences(of: #""u":13079592"#, with: #""u":13079600"#))
        try await pollUntil("rebuilt") { Self.books(log, "BTCUSDT").last?.isSynced == true }

        // A reconnect: the new connection subscribes the book again and its snapshot is the book.
        try await reconnectOnVirtualTime(server, clock, log)
        #expect(server.connections.last?.texts.first?.contains("orderbook.50.BTCUSDT") == true)
        server.push(frames[0].replacingOccurrences(of: #""17440.00","40.833""#, with: #""17440.10","1.5""#).replacingOccurrences(of: #""u":13079592"#, with: #""u":13079700"#))
        try await pollUntil("the new connection's snapshot") { Self.books(log, "BTCUSDT").last?.bids.best?.price == 17440.1 }
        #expect(Self.books(log, "BTCUSDT").last?.isSynced == true)

        // A delta that crosses the book: the frame is refused, the engine hears at once that the book is gone,
        // and the book is asked for again on the new connection.
        let crossing = frames[1].replacingOccurrences(of: #""u":13079593"#, with: #""u":13079701"#)
            .replacingOccurrences(of: #""b":[]"#, with: #""b":[["17500.00","1.000"]]"#)
        server.push(crossing)
        try await pollUntil("the crossed book handed on unsynced") { Self.books(log, "BTCUSDT").last?.isSynced == false }
        try await pollUntil("asked for again on the new connection") {
            (server.connections.last?.texts ?? []).contains { $0.contains(#""req_id":"resync-BTCUSDT""#) }
        }
        task.cancel()
        await task.value
        await server.shutdown()
    }
}
