import Foundation
import MarketAlertCore
@testable import MarketAlertIO
import MarketAlertTestSupport
import Synchronization
import Testing

/// A busy engine never backs up the reader: the stream hands every frame's quotes to the engine inbox at
/// once, and while the engine loop is not reading, they coalesce there per market (latest value wins) in
/// one queued input per exchange; status changes keep their place.
@Suite struct StreamCoalescingTests {
    @Test func aBusyEngineGetsTheLatestValuePerMarketInOneInput() async throws {
        let inbox = EngineInbox()
        let coverage = StreamCoverage()
        let (server, counters, task) = try await Self.binanceStream { update in
            ExchangeProducer.forward(update, from: .binance, to: inbox, coverage: coverage)
        }
        defer { task.cancel() }
        try await server.waitUntil("a subscription") { !($0.connections.first?.texts.isEmpty ?? true) }
        guard case .event(.stream(.binance, live: true, _))? = await inbox.stream.next() else {
            Issue.record("expected the stream to go live first")
            return
        }
        #expect(coverage.pollScope == .only([]), "REST quiet while the stream is live and carries every market")
        // The engine is busy (nothing reads the inbox) while 301 frames arrive.
        server.push(#"{"u":1,"s":"BTCUSDT","b":"100.0","B":"1","a":"100.1","A":"1"}"#)
        for step in 1...300 {
            let symbol = step.isMultiple(of: 2) ? "BTCUSDT" : "ETHUSDT"
            server.push("{\"u\":\(step + 1),\"s\":\"\(symbol)\",\"b\":\"\(200 + step).0\",\"B\":\"1\",\"a\":\"\(200 + step).5\",\"A\":\"1\"}")
        }
        try await pollUntil("301 data frames") { counters.snapshot.dataFrames == 301 }
        // One input queued for all of them: the live event and one mailbox notice, nothing else.
        #expect(inbox.sent == 2)
        guard case .mailbox(.binance)? = await inbox.stream.next() else {
            Issue.record("expected one mailbox input for binance")
            return
        }
        let batch = inbox.mailbox.take(.binance)
        #expect(batch.count == 2)
        #expect(batch.first { $0.market == "BTCUSDT" }?.bid?.exact == Decimal(500))
        #expect(batch.first { $0.market == "ETHUSDT" }?.bid?.exact == Decimal(499))
        #expect(batch.allSatisfy { $0.transport == .stream })
        // Taken: the next frame is a new input of its own, with only its quote.
        server.push(#"{"u":400,"s":"BTCUSDT","b":"999.0","B":"1","a":"999.5","A":"1"}"#)
        guard case .mailbox(.binance)? = await inbox.stream.next() else {
            Issue.record("expected a mailbox input for the sentinel")
            return
        }
        let sentinel = inbox.mailbox.take(.binance)
        #expect(sentinel.map(\.market) == ["BTCUSDT"])
        #expect(sentinel.first?.bid?.exact == Decimal(999))
        #expect(inbox.sent == 3)
        task.cancel()
        await task.value
        await server.shutdown()
    }

    /// A burst the socket delivers in one read is one batch: the latest value per market, handed on when
    /// the read is done, not one update per frame.
    @Test func aBurstReadAtOnceIsOneBatchOfTheLatestValues() async throws {
        let updates = BurstUpdates()
        let (server, counters, task) = try await Self.binanceStream { updates.append($0) }
        defer { task.cancel() }
        try await pollUntil("the stream going live") { updates.all.contains(.live) }
        // 20 bookTicker frames (about 1.3 KB, within the client's first read buffer) in one segment.
        let frames = (1...20).map { step in
            let symbol = step.isMultiple(of: 2) ? "BTCUSDT" : "ETHUSDT"
            return "{\"u\":\(step),\"s\":\"\(symbol)\",\"b\":\"\(200 + step).0\",\"B\":\"1\",\"a\":\"\(200 + step).5\",\"A\":\"1\"}"
        }
        server.pushTogether(frames)
        try await pollUntil("20 data frames") { counters.snapshot.dataFrames == 20 }
        try await pollUntil("a batch of quotes") { !updates.quoteBatches.isEmpty }
        let batches = updates.quoteBatches
        #expect(batches.count == 1, "one batch for one read, got \(batches.map(\.count))")
        let batch = try #require(batches.first)
        #expect(batch.count == 2)
        #expect(batch.first { $0.market == "BTCUSDT" }?.bid?.exact == Decimal(220))
        #expect(batch.first { $0.market == "ETHUSDT" }?.bid?.exact == Decimal(219))
        task.cancel()
        await task.value
        await server.shutdown()
    }

    /// A Binance stream of BTC and ETH against a local server, its updates to `consumer`, running until the
    /// returned task is cancelled.
    private static func binanceStream(
        _ consumer: @escaping @Sendable (StreamUpdate) -> Void
    ) async throws -> (WebSocketTestServer, StreamCounters, Task<Void, Never>) {
        let server = try await WebSocketTestServer(persona: StreamPersonas.of(.binance)(StreamPersonaKnobs()))
        let counters = StreamCounters()
        let source = WebSocketStreamSource(
            protocol: BinanceStream(), url: server.url("/ws"), clock: ManualClock(now: Date(timeIntervalSince1970: 1_750_000_000)),
            counters: counters, random: { 0.5 })
        let pairs: Set<MarketPair> = [MarketPair(base: "BTC", quote: "USDT"), MarketPair(base: "ETH", quote: "USDT")]
        return (server, counters, Task { await source.run(pairs: pairs, emit: consumer) })
    }
}

private final class BurstUpdates: Sendable {
    private let updates = Mutex<[StreamUpdate]>([])
    func append(_ update: StreamUpdate) { updates.withLock { $0.append(update) } }
    var all: [StreamUpdate] { updates.withLock { $0 } }
    var quoteBatches: [[Quote]] {
        all.compactMap { update in
            if case .quotes(let quotes) = update { return quotes }
            return nil
        }
    }
}
