import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// Each exchange's markets-per-connection limit, checked against the channels its own subscription asks for:
/// a full connection stays within the cap the exchange documents (tickers only, and with books).
@Suite struct StreamConnectionLimitTests {
    /// `count` distinct pairs, as `stream` names them.
    static func markets(_ count: Int, _ stream: some ExchangeStreamProtocol) -> [String] {
        let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        return (0..<count).map { index in
            stream.marketID(MarketPair(base: "Q\(letters[index / 676 % 26])\(letters[index / 26 % 26])\(letters[index % 26])", quote: "USDT"))
        }
    }

    static func objects(_ subscription: StreamSubscription) -> [[String: Any]] {
        subscription.messages.compactMap(StreamPersonas.object)
    }

    /// The channels a full connection of `stream` subscribes, counted `channels`' way; nil limit fails.
    static func fullConnection<P: ExchangeStreamProtocol>(_ stream: P, channels: ([[String: Any]]) -> Int) throws -> (markets: Int, channels: Int) {
        let limit = try #require(stream.maxMarketsPerConnection)
        return (limit, channels(objects(stream.subscription(for: markets(limit, stream)))))
    }

    @Test func bitfinexStaysWithin25ChannelsAConnection() throws {
        let count: ([[String: Any]]) -> Int = { $0.filter { $0["event"] as? String == "subscribe" }.count }
        let tickers = try Self.fullConnection(BitfinexStream(), channels: count)
        #expect(tickers.channels <= 25 && tickers.markets == 25)
        let books = try Self.fullConnection(try #require(BitfinexStream().keepingBooks(levels: 25)), channels: count)
        #expect(books.channels <= 25 && books.markets >= 12)
    }

    @Test func binanceStaysWithin1024StreamsAConnection() throws {
        let count: ([[String: Any]]) -> Int = { $0.reduce(0) { $0 + (($1["params"] as? [Any])?.count ?? 0) } }
        let tickers = try Self.fullConnection(BinanceStream(), channels: count)
        #expect(tickers.channels <= 1024 && tickers.channels >= 900)
        let books = try Self.fullConnection(try #require(BinanceStream().keepingBooks(levels: 20)), channels: count)
        #expect(books.channels <= 1024 && books.channels >= 900)
    }

    @Test func bitgetStaysWithin1000ChannelsAConnection() throws {
        let count: ([[String: Any]]) -> Int = { $0.reduce(0) { $0 + (($1["args"] as? [Any])?.count ?? 0) } }
        let tickers = try Self.fullConnection(BitgetStream(), channels: count)
        #expect(tickers.channels <= 1000 && tickers.channels >= 900)
        let books = try Self.fullConnection(try #require(BitgetStream().keepingBooks(levels: 20)), channels: count)
        #expect(books.channels <= 1000 && books.channels >= 900)
    }

    @Test func kucoinStaysWithin300TopicsAConnection() throws {
        // A topic names its pairs after the colon: `/market/ticker:A-USDT,B-USDT`.
        let count: ([[String: Any]]) -> Int = { objects in
            objects.reduce(0) { total, object in
                let topic = object["topic"] as? String ?? ""
                return total + (topic.split(separator: ":").last.map { $0.split(separator: ",").count } ?? 0)
            }
        }
        let tickers = try Self.fullConnection(KuCoinStream(), channels: count)
        #expect(tickers.channels <= 300 && tickers.channels >= 250)
        let books = try Self.fullConnection(try #require(KuCoinStream().keepingBooks(levels: 20)), channels: count)
        #expect(books.channels <= 300 && books.channels >= 250)
    }

    /// The exchanges that document no cap keep one connection, however many markets.
    @Test(arguments: [ExchangeID.okx, .bybit, .gate, .htx, .coinbase, .kraken, .upbit, .bithumb, .coinone])
    func exchangesWithoutADocumentedCapKeepOneConnection(_ exchange: ExchangeID) throws {
        let stream = try #require(ExchangeRegistry.standard[exchange]?.stream)
        #expect(stream.maxMarketsPerConnection == nil)
    }
}
