import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Synchronization
import Testing

/// An exchange that limits markets per connection, against a real WebSocket server on 127.0.0.1: the
/// watched markets are spread over several connections, and their states merge into the exchange's.
@Suite struct ShardedStreamSocketTests {
    static let start = Date(timeIntervalSince1970: 1_750_000_000)

    /// OKX's real protocol, with a limit of two markets a connection.
    @Test func fiveMarketsAtTwoAConnectionOpenThreeConnectionsAndMergeTheirStates() async throws {
        let pairs = Set(["ADA", "BTC", "ETH", "SOL", "XRP"].map { MarketPair(base: $0, quote: "USDT") })
        let stream = LimitedStream(base: OKXStream(), limit: 2)
        let run = try await ShardedRun(stream, exchange: .okx, path: "/ws/v5/public", pairs: pairs)
        do {
            try await run.waitFor("three connections, live") { run in
                run.server.openConnections.count == 3 && run.updates.all.contains(.live)
            }
            let subscribed = run.subscribedByConnection { OKXTopics.instIds($0) }
            #expect(subscribed.count == 3)
            #expect(subscribed.values.allSatisfy { $0.count <= 2 }, "\(subscribed)")
            #expect(subscribed.values.reduce(Set<String>()) { $0.union($1) } == Set(pairs.map(stream.marketID)))
            // `.live` came once, after every connection's acks: nothing went down on the way.
            #expect(run.updates.all.filter { $0 == .live }.count == 1)
            #expect(run.updates.downs.isEmpty)

            try await run.pushTickers(subscribed)
            try await run.waitFor("a quote of every market") { run in
                Set(run.updates.quotes.map(\.market)) == Set(pairs.map(stream.marketID))
            }

            // One connection dropped: the exchange is down, naming it, then live again once it is replaced.
            let victim = try #require(subscribed.keys.sorted().dropFirst().first)
            run.server.closeAbruptly(victim)
            try await run.waitFor("down") { !$0.updates.downs.isEmpty }
            #expect(run.updates.downs.first?.contains("of 3:") == true, "\(run.updates.downs)")
            try await run.advance(until: "a fourth connection, live again") { run in
                run.server.connections.count == 4 && run.updates.all.filter { $0 == .live }.count == 2
            }
            let replacement = try #require(run.server.connections.last)
            #expect(OKXTopics.instIds(replacement.texts) == subscribed[victim])
            #expect(run.server.openConnections.count == 3)
        } catch {
            await run.stop()
            throw error
        }
        await run.stop()
    }

    /// Bitfinex's real adapter (25 channels a connection) with 30 markets against a server that refuses the
    /// 26th channel of a connection as Bitfinex does: two connections, every market streamed, none refused.
    @Test func bitfinexWithThirtyMarketsOpensTwoConnectionsWithinItsChannelLimit() async throws {
        let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        let pairs = Set((0..<30).map { MarketPair(base: "Q\(letters[$0 / 26])\(letters[$0 % 26])", quote: "USD") })
        let stream = BitfinexStream()
        let run = try await ShardedRun(stream, exchange: .bitfinex, path: "/ws/2", pairs: pairs, channelLimit: 25)
        do {
            try await run.waitFor("two connections, live") { run in
                run.server.openConnections.count == 2 && run.updates.all.contains(.live)
            }
            let subscribed = run.subscribedByConnection { BitfinexTopics.symbols($0) }
            #expect(subscribed.values.map(\.count).sorted() == [15, 15])
            #expect(subscribed.values.reduce(Set<String>()) { $0.union($1) } == Set(pairs.map(stream.marketID)))
            try await run.pushTickers(subscribed)
            try await run.waitFor("a quote of every market") { run in
                Set(run.updates.quotes.map(\.market)) == Set(pairs.map(stream.marketID))
            }
            #expect(run.refusals == 0)
            #expect(!run.updates.all.contains { if case .restOnly(let some) = $0 { !some.isEmpty } else { false } })
            #expect(run.updates.downs.isEmpty)
        } catch {
            await run.stop()
            throw error
        }
        await run.stop()
    }
}

/// The market ids of OKX subscribe requests.
enum OKXTopics {
    static func instIds(_ texts: [String]) -> Set<String> {
        Set(texts.flatMap { text -> [String] in
            let args = StreamPersonas.object(text)?["args"] as? [[String: Any]] ?? []
            return args.compactMap { $0["instId"] as? String }
        })
    }
}

/// The symbols of Bitfinex `ticker` subscribe requests.
enum BitfinexTopics {
    static func symbols(_ texts: [String]) -> Set<String> {
        Set(texts.compactMap { text in
            guard let object = StreamPersonas.object(text), object["event"] as? String == "subscribe" else { return nil }
            return object["symbol"] as? String
        })
    }
}
