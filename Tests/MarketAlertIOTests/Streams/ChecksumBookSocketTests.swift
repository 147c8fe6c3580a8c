import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// OKX, Bitget and Kraken books on real sockets: a local server speaking each exchange's protocol (its wire
/// kit's persona acknowledges `books`/`book` as the exchange does) pushes recorded frames; the stream's
/// quotes carry the book, a bad checksum makes it unusable, later changes do not revive it, the transport
/// unsubscribes and subscribes that book again on the same connection and the snapshot that answers makes
/// it usable; after a reconnect the new subscription's snapshot does the same.
@Suite struct ChecksumBookSocketTests {
    struct BookCase: Sendable, CustomStringConvertible {
        var name: String
        var exchange: ExchangeID
        var path: String
        var pair: MarketPair
        var market: String
        var levels: Int
        var file: String
        /// The subscription's book topic as the server reads it.
        var bookTopic: String
        var make: @Sendable (URL, ManualClock, StreamCounters) -> any StreamSource
        var decode: @Sendable (String, inout StreamMarketTable) -> StreamFrame
        var description: String { name }
    }

    static func bookCase<P: ExchangeStreamProtocol>(
        _ name: String, _ stream: P, path: String, pair: MarketPair, market: String, levels: Int, file: String, bookTopic: String
    ) -> BookCase {
        BookCase(
            name: name, exchange: stream.exchange, path: path, pair: pair, market: market, levels: levels, file: file, bookTopic: bookTopic,
            make: { url, clock, counters in
                WebSocketStreamSource(
                    protocol: stream, url: url, staleAfter: .seconds(30), clock: clock, counters: counters, random: { 0.5 },
                    depthLevels: levels)
            },
            decode: { text, table in
                table.beginFrame()
                return Array(text.utf8).withUnsafeBytes { stream.decode($0, into: &table, receivedAt: Date(timeIntervalSince1970: 0)) }
            })
    }

    static let cases: [BookCase] = [
        bookCase(
            "okx", OKXStream().keepingBooks(levels: 20) ?? OKXStream(), path: "/ws/v5/public", pair: MarketPair(base: "BTC", quote: "USDT"),
            market: "BTC-USDT", levels: 20, file: "streams/okx/books-BTC-USDT-20220513-cryptofeed.jsonl", bookTopic: "\"books\""),
        bookCase(
            "bitget", BitgetStream().keepingBooks(levels: 10) ?? BitgetStream(), path: "/v2/ws/public", pair: MarketPair(base: "EOS", quote: "USDT"),
            market: "EOSUSDT", levels: 10, file: "streams/bitget/books-EOSUSDT-20220407-cryptofeed-v1.jsonl", bookTopic: "\"books\""),
        bookCase(
            "kraken", KrakenStream().keepingBooks(levels: 600) ?? KrakenStream(), path: "/v2", pair: MarketPair(base: "BTC", quote: "CHF"),
            market: "BTC/CHF", levels: 600, file: "streams/kraken/book-v2-BTC-CHF-GRT-ETH-20210417-cryptofeed-v1.jsonl",
            bookTopic: "\"depth\":1000"),
    ]

    func streamCase(_ c: BookCase) -> StreamCase {
        StreamCase(
            name: c.name, exchange: c.exchange, path: c.path, pairs: [c.pair],
            makeSource: { url, clock, counters, _ in c.make(url, clock, counters) },
            persona: StreamPersonas.of(c.exchange), expectedTopics: [], topics: { _ in [] }, recorded: [], expected: [:],
            fresh: .text("{}"), freshMarket: c.market, freshExpected: StreamCase.Expected(), bad: [],
            keepalive: .serverPings)
    }

    /// `text` with its checksum replaced by one that cannot be right.
    func corrupted(_ text: String) throws -> String {
        let range = try #require(text.range(of: #""checksum":-?[0-9]+"#, options: .regularExpression))
        return text.replacingCharacters(in: range, with: "\"checksum\":7")
    }

    @Test(arguments: cases)
    func booksOverASocketWithABadChecksumAResyncAndAReconnect(_ c: BookCase) async throws {
        let lines = try Fixtures.string(c.file).split(separator: "\n").map(String.init).filter { $0.contains("\"\(c.market)\"") }
        #expect(lines.count >= 20)
        // What the frames make of the book, decoded here: the stream must hand on the same book.
        var reference = StreamMarketTable(pairs: [c.pair], marketID: { _ in c.market }, depthLevels: c.levels)
        for line in lines.prefix(12) { #expect(c.decode(line, &reference) == .data) }
        let expected = try #require(reference.book(0))
        #expect(expected.isSynced)

        try await withStream(streamCase(c)) { h in
            try await h.waitLive()
            #expect(h.server.connections[0].texts.contains { $0.contains(c.bookTopic) })
            for line in lines.prefix(12) { h.server.push(line) }
            try await h.waitFor("the book after 12 recorded frames") { $0.latest(c.market)?.depth == expected }
            #expect(h.latest(c.market)?.bid?.value == expected.bids.best?.price)

            // A change with a checksum that does not match: the book is unusable at once.
            h.server.push(try corrupted(lines[12]))
            try await h.waitFor("the book unusable after a bad checksum") { $0.latest(c.market)?.depth?.isSynced == false }
            // Later changes do not revive it.
            let quotes = h.quotes.count
            h.server.push(lines[13])
            try await h.settle()
            #expect(h.quotes.dropFirst(quotes).allSatisfy { $0.depth?.isSynced != true })
            #expect(h.counters.snapshot.droppedTotal == 0)
            // The transport asks for a fresh snapshot on the same connection: unsubscribe, subscribe again.
            try await h.waitFor("the book unsubscribed and subscribed again") { h in
                let texts = h.server.connections[0].texts
                guard let drop = texts.lastIndex(where: { $0.contains("unsubscribe") && $0.contains(c.market) }) else { return false }
                return texts[(drop + 1)...].contains { $0.contains("\"subscribe\"") && $0.contains(c.market) && $0.contains(c.bookTopic) }
            }
            #expect(h.server.connections.count == 1)
            h.server.push(lines[0])
            try await h.waitFor("the fresh snapshot") { $0.latest(c.market)?.depth?.isSynced == true }
            #expect(h.downs.isEmpty, "\(h.downs)")

            // A new connection subscribes again and its snapshot makes the book usable.
            h.server.closeAbruptly()
            try await h.waitDown()
            try await h.advance(by: .seconds(1))
            try await h.waitLive(count: 2)
            #expect(h.server.connections[1].texts.contains { $0.contains(c.bookTopic) })
            h.server.push(lines[0], to: h.server.connections[1].id)
            try await h.waitFor("the snapshot on the new connection") { $0.latest(c.market)?.depth?.isSynced == true }
            h.server.push(lines[1], to: h.server.connections[1].id)
            var again = StreamMarketTable(pairs: [c.pair], marketID: { _ in c.market }, depthLevels: c.levels)
            for line in lines.prefix(2) { _ = c.decode(line, &again) }
            let afterTwo = try #require(again.book(0))
            try await h.waitFor("the first change on the new snapshot") { $0.latest(c.market)?.depth == afterTwo }
        }
    }
}
