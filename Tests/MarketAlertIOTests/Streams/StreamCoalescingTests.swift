import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Synchronization
import Testing

/// A slow consumer never backs up the reader: while `emit` is busy, quotes coalesce per market (latest
/// value wins) and status changes keep their place.
@Suite struct StreamCoalescingTests {
    final class Gate: Sendable {
        private let open = Mutex(true)
        func close() { open.withLock { $0 = false } }
        func release() { open.withLock { $0 = true } }
        var isOpen: Bool { open.withLock { $0 } }
    }

    @Test func aBusyConsumerGetsTheLatestValuePerMarketInOneBatch() async throws {
        let server = try await WebSocketTestServer(persona: StreamPersonas.binance(StreamPersonaKnobs()))
        let counters = StreamCounters()
        let log = UpdateLog()
        let gate = Gate()
        let source = WebSocketStreamSource(
            protocol: BinanceStream(), url: server.url("/ws"), clock: ManualClock(now: Date(timeIntervalSince1970: 1_750_000_000)),
            counters: counters, random: { 0.5 })
        let pairs: Set<MarketPair> = [MarketPair(base: "BTC", quote: "USDT"), MarketPair(base: "ETH", quote: "USDT")]
        let task = Task {
            await source.run(pairs: pairs) { update in
                log.append(update)
                while !gate.isOpen { try? await Task.sleep(for: .milliseconds(2)) }
            }
        }
        defer { task.cancel() }
        try await server.waitUntil("a subscription") { !($0.connections.first?.texts.isEmpty ?? true) }
        try await waitFor { log.all.contains(.live) }
        // The consumer is stuck in its first quote while 300 frames arrive.
        gate.close()
        server.push(#"{"u":1,"s":"BTCUSDT","b":"100.0","B":"1","a":"100.1","A":"1"}"#)
        try await waitFor { log.all.count == 2 }
        for step in 1...300 {
            let symbol = step.isMultiple(of: 2) ? "BTCUSDT" : "ETHUSDT"
            server.push("{\"u\":\(step + 1),\"s\":\"\(symbol)\",\"b\":\"\(200 + step).0\",\"B\":\"1\",\"a\":\"\(200 + step).5\",\"A\":\"1\"}")
        }
        try await waitFor { counters.snapshot.dataFrames == 301 }
        #expect(log.all.count == 2)  // nothing delivered while the consumer is busy
        gate.release()
        try await waitFor { log.all.count == 3 }
        // A handshake instead of a pause: a sentinel frame pushed now is read after everything the 301 frames
        // could still cause (one ordered socket, one decoder, one mailbox). It must arrive alone, as the fourth
        // update: a stray or repeated delivery would come before it or share its batch.
        server.push(#"{"u":400,"s":"BTCUSDT","b":"999.0","B":"1","a":"999.5","A":"1"}"#)
        try await waitFor { log.all.count >= 4 }
        let updates = log.all
        #expect(updates.count == 4)
        guard case .quotes(let sentinel) = updates[3] else {
            Issue.record("expected the sentinel quote, got \(updates)")
            return
        }
        #expect(sentinel.map(\.market) == ["BTCUSDT"])
        #expect(sentinel.first?.bid?.exact == Decimal(999))
        guard case .quotes(let batch) = updates[2] else {
            Issue.record("expected a batch of quotes, got \(updates)")
            return
        }
        #expect(batch.count == 2)
        #expect(batch.first { $0.market == "BTCUSDT" }?.bid?.exact == Decimal(500))
        #expect(batch.first { $0.market == "ETHUSDT" }?.bid?.exact == Decimal(499))
        task.cancel()
        await task.value
        await server.shutdown()
    }

    private func waitFor(_ condition: @Sendable () -> Bool) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .seconds(10))
        while !condition() {
            guard clock.now < deadline else { throw WebSocketTestServer.WaitTimeout(what: "condition") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
