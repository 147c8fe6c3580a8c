import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Synchronization
import Testing

/// An exchange's real stream protocol with another limit of markets per connection (everything else as the
/// exchange's own), so a handful of markets shows what hundreds do.
struct LimitedStream<Base: ExchangeStreamProtocol>: ExchangeStreamProtocol {
    let base: Base
    let limit: Int

    var exchange: ExchangeID { base.exchange }
    var keepalive: StreamKeepalive { base.keepalive }
    var pingMessage: String { base.pingMessage }
    var lifetime: Duration? { base.lifetime }
    var outboundLimit: OutboundPacer? { base.outboundLimit }
    var reconnectFloor: Duration { base.reconnectFloor }
    var endpointRequest: StreamEndpointRequest? { base.endpointRequest }
    var maxMarketsPerConnection: Int? { limit }
    func marketID(_ pair: MarketPair) -> String { base.marketID(pair) }
    func subscription(for markets: [String]) -> StreamSubscription { base.subscription(for: markets) }
    func decode(_ frame: UnsafeRawBufferPointer, into table: inout StreamMarketTable, receivedAt: Date) -> StreamFrame {
        base.decode(frame, into: &table, receivedAt: receivedAt)
    }
}

/// One `WebSocketStreamSource` running against a `WebSocketTestServer` that answers as the exchange's wire
/// kit does (optionally refusing a connection's subscriptions past `channelLimit` with Bitfinex's `10305
/// subscribe: limit`), with every timer on a `ManualClock`.
final class ShardedRun: Sendable {
    let server: WebSocketTestServer
    let clock: ManualClock
    let updates = UpdateLog()
    let peer: StreamPeer
    private let refused = RefusalCount()
    private let task = Mutex<Task<Void, Never>?>(nil)

    init<P: ExchangeStreamProtocol>(
        _ stream: P, exchange: ExchangeID, path: String, pairs: Set<MarketPair>, channelLimit: Int? = nil
    ) async throws {
        peer = try #require(ExchangeRegistry.standard[exchange]?.wire.stream)
        let persona = StreamPersonas.of(exchange)(StreamPersonaKnobs())
        let counts = Mutex<[Int: Int]>([:])
        let refused = self.refused
        server = try await WebSocketTestServer { text, connection in
            guard let channelLimit, StreamPersonas.object(text)?["event"] as? String == "subscribe" else { return persona(text, connection) }
            let count = counts.withLock { counts in
                counts[connection, default: 0] += 1
                return counts[connection, default: 0]
            }
            guard count > channelLimit else { return persona(text, connection) }
            refused.count.withLock { $0 += 1 }
            let symbol = StreamPersonas.object(text)?["symbol"] as? String ?? ""
            return [.text(#"{"event":"error","msg":"subscribe: limit","code":10305,"channel":"ticker","symbol":"\#(symbol)"}"#)]
        }
        clock = ManualClock(now: ShardedStreamSocketTests.start)
        let source = WebSocketStreamSource(protocol: stream, url: server.url(path), clock: clock, random: { 0.5 })
        let updates = self.updates
        task.withLock { $0 = Task { await source.run(pairs: pairs) { updates.append($0) } } }
    }

    /// Subscriptions the server refused for the channel limit.
    var refusals: Int { refused.count.withLock { $0 } }

    /// The markets each connection asked for, as `parse` reads them out of its messages.
    func subscribedByConnection(_ parse: ([String]) -> Set<String>) -> [Int: Set<String>] {
        var out: [Int: Set<String>] = [:]
        for connection in server.connections { out[connection.id] = parse(connection.texts) }
        return out
    }

    /// One ticker frame of each market, on the connection that subscribed it.
    func pushTickers(_ subscribed: [Int: Set<String>]) async throws {
        let millis = Int64(ShardedStreamSocketTests.start.timeIntervalSince1970 * 1000)
        let row = WireRow(
            base: "X", quote: "Y", last: "100.5", bid: "100.4", ask: "100.6", open: "99", high: "101", low: "98",
            volume: "10", quoteVolume: "1000", timeMillis: millis)
        for (connection, markets) in subscribed {
            for market in markets.sorted() {
                switch peer.encode(peer.tickerFrame(row, market, 1, millis)) {
                case .text(let text): server.push(text, to: connection)
                case .binary(let data): server.push(binary: data, to: connection)
                }
            }
        }
    }

    func waitFor(_ what: String, _ condition: @Sendable (ShardedRun) -> Bool) async throws {
        do {
            try await pollUntil(what, timeout: .seconds(10)) { condition(self) }
        } catch {
            Issue.record("timed out waiting for \(what); updates: \(updates.all.map(StreamTestHarness.describe))")
            throw error
        }
    }

    /// Moves virtual time a second at a time (at most a minute), letting the source act on each step, until
    /// `condition` holds.
    func advance(until what: String, _ condition: @Sendable (ShardedRun) -> Bool) async throws {
        for _ in 0..<60 {
            if condition(self) { return }
            await clock.advance(by: .seconds(1))
            try? await pollUntil(what, timeout: .milliseconds(300)) { condition(self) }
        }
        try await waitFor(what, condition)
    }

    func stop() async {
        let running = task.withLock { $0 }
        running?.cancel()
        await running?.value
        await server.shutdown()
    }
}

/// How many subscriptions the server refused, shared with its persona.
final class RefusalCount: Sendable {
    let count = Mutex(0)
}

extension UpdateLog {
    var downs: [String] { all.compactMap { if case .down(let reason) = $0 { reason } else { nil } } }
    var quotes: [Quote] {
        all.flatMap { update -> [Quote] in if case .quotes(let quotes) = update { return quotes } else { return [] } }
    }
}
