import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// Every registry exchange's wire kit speaks the exchange's own protocol: its REST source, fetching from the
/// kit's REST peer, gets exactly the rows' prices; the kit's ticker frame decodes through the exchange's
/// stream decoder to the same prices; its persona acks the subscription the exchange's stream protocol
/// builds (and refuses it when told to); and its answer templates are the recorded fixtures' shapes. A new
/// exchange in the registry is covered without a line here.
@Suite struct ExchangeWireKitTests {
    static let exchanges = ExchangeRegistry.standard.listed.map(\.id)
    static let nowMillis: Int64 = 1_773_110_820_000

    /// BTC in the exchange's home quote, with a distinct last, bid and ask.
    static func row(_ quote: String) -> WireRow {
        let krw = quote == "KRW"
        var row = WireRow(
            base: "BTC", quote: quote, last: krw ? "96345000" : "68812.37", bid: krw ? "96344000" : "68812.36",
            ask: krw ? "96346000" : "68812.38", open: krw ? "95000000" : "68000.1", high: krw ? "97000000" : "69000.2",
            low: krw ? "94000000" : "67000.3", volume: "1234.5", quoteVolume: krw ? "118900000000" : "84950000.5", timeMillis: nowMillis)
        row.bidQty = "1.5"
        return row
    }

    static func descriptor(_ exchange: ExchangeID) throws -> ExchangeDescriptor {
        try #require(ExchangeRegistry.standard[exchange])
    }

    @Test(arguments: exchanges)
    func theRESTSourceReadsThePeersAnswerToExactlyTheRowsPrices(_ exchange: ExchangeID) async throws {
        let descriptor = try Self.descriptor(exchange)
        let row = Self.row(descriptor.wire.homeQuote)
        let id = descriptor.marketID(row.pair)
        let book = WirePeerBook(live: { [(id: id, row: row)] }, row: { $0 == id ? row : nil })
        try await withExchangeServer { server, fetcher in
            server.fallback { request in
                let answer = descriptor.wire.rest.answer(WireRequest(path: request.path, query: request.query, nowMillis: Self.nowMillis), book)
                return answer.map { MockHTTPServer.Response(status: $0.status, headers: $0.headers, body: Data($0.body.utf8)) }
            }
            let source = descriptor.makeQuoteSource(ExchangeSettings(id: exchange, baseURL: server.baseURL), fetcher)
            let quotes = try await source.fetchQuotes(for: [row.pair])
            let quote = try #require(quotes.first, "\(exchange): no quote; requests: \(server.requests.map(\.path))")
            #expect(quotes.count == 1)
            #expect(quote.market == id)
            #expect(quote.last?.exact == Decimal(string: row.last))
            if let bid = quote.bid { #expect(bid.exact == Decimal(string: row.bid)) }
            if let ask = quote.ask { #expect(ask.exact == Decimal(string: row.ask)) }
            #expect(server.requests.allSatisfy { RESTPeer.claims(descriptor.wire.rest.paths, $0.path) })
        }
    }

    @Test(arguments: exchanges)
    func aRenderedAnswerDecodesToTheRowsPrices(_ exchange: ExchangeID) throws {
        let descriptor = try Self.descriptor(exchange)
        let row = Self.row(descriptor.wire.homeQuote)
        let body = Data(descriptor.wire.rest.body([row], Self.nowMillis).utf8)
        let quotes = try descriptor.decodeTickers(body, [row.pair], Date(timeIntervalSince1970: 1_773_110_820))
        #expect(quotes.map(\.market) == [descriptor.marketID(row.pair)])
        #expect(quotes.first?.last?.exact == Decimal(string: row.last))
    }

    @Test(arguments: exchanges)
    func aTickerFrameDecodesThroughTheExchangesStreamDecoder(_ exchange: ExchangeID) throws {
        let descriptor = try Self.descriptor(exchange)
        let stream = try #require(descriptor.stream)
        let peer = try #require(descriptor.wire.stream)
        let row = Self.row(descriptor.wire.homeQuote)
        var table = StreamMarketTable(pairs: [row.pair], marketID: stream.marketID)
        // As on a connection, the exchange's answers to the subscription come first (Bitfinex numbers its
        // channels in them).
        _ = Self.answer(stream.subscription(for: [stream.marketID(row.pair)]), peer, stream, mode: .ack, into: &table)
        table.beginFrame()
        let frame = peer.tickerFrame(row, stream.marketID(row.pair), 7, Self.nowMillis)
        let receivedAt = Date(timeIntervalSince1970: 1_773_110_820)
        let outcome = Array(frame.utf8).withUnsafeBytes { stream.decode($0, into: &table, receivedAt: receivedAt) }
        #expect(outcome == .data, "\(frame)")
        let index = try #require(table.touched.first)
        let quote = table.quote(index, exchange: exchange, receivedAt: receivedAt)
        #expect(quote.last?.exact == Decimal(string: row.last))
        if let bid = quote.bid { #expect(bid.exact == Decimal(string: row.bid)) }
        if let ask = quote.ask { #expect(ask.exact == Decimal(string: row.ask)) }
    }

    /// What the persona's replies to the subscription of BTC decode to, through the exchange's own decoder.
    static func answers(_ exchange: ExchangeID, mode: PersonaKnobs.Mode) throws -> (StreamSubscription, [StreamFrame]) {
        let descriptor = try descriptor(exchange)
        let stream = try #require(descriptor.stream)
        let peer = try #require(descriptor.wire.stream)
        let pair = MarketPair(base: "BTC", quote: descriptor.wire.homeQuote)
        let subscription = stream.subscription(for: [stream.marketID(pair)])
        var table = StreamMarketTable(pairs: [pair], marketID: stream.marketID)
        return (subscription, answer(subscription, peer, stream, mode: mode, into: &table))
    }

    /// The persona's replies to `subscription`, decoded into `table` by the exchange's decoder.
    static func answer(
        _ subscription: StreamSubscription, _ peer: StreamPeer, _ stream: any ExchangeStreamProtocol, mode: PersonaKnobs.Mode,
        into table: inout StreamMarketTable
    ) -> [StreamFrame] {
        var frames: [StreamFrame] = []
        for message in subscription.messages {
            for reply in peer.persona(message, PersonaKnobs(mode: mode)) {
                let bytes: [UInt8] = switch reply {
                case .text(let text): Array(text.utf8)
                case .binary(let data): Array(data)
                }
                table.beginFrame()
                frames.append(bytes.withUnsafeBytes { stream.decode($0, into: &table, receivedAt: Date()) })
            }
        }
        return frames
    }

    @Test(arguments: exchanges)
    func thePersonaAcksTheExchangesOwnSubscription(_ exchange: ExchangeID) throws {
        let (subscription, frames) = try Self.answers(exchange, mode: .ack)
        let acked = Set(frames.flatMap { frame -> [String] in if case .acked(let keys, _) = frame { keys } else { [] } })
        if subscription.liveOnFirstData {
            #expect(frames.contains(.data), "\(frames)")
        } else {
            #expect(!subscription.acks.isEmpty)
            #expect(subscription.acks.isSubset(of: acked), "acks \(subscription.acks) of \(frames)")
        }
    }

    @Test(arguments: exchanges)
    func aRejectingPersonaAcksNothing(_ exchange: ExchangeID) throws {
        let (_, frames) = try Self.answers(exchange, mode: .reject)
        #expect(!frames.isEmpty)
        #expect(frames.allSatisfy { if case .rejected = $0 { true } else { false } }, "\(frames)")
    }

    @Test(arguments: exchanges)
    func theTemplatesAreTheRecordedShapesAndTheFixtureFoldersExist(_ exchange: ExchangeID) throws {
        let wire = try Self.descriptor(exchange).wire
        func squeezed(_ text: String) -> String { text.filter { !$0.isWhitespace } }
        for shape in wire.rest.shapes {
            #expect(squeezed(try Fixtures.string(shape.fixture)).contains(squeezed(shape.text)), "\(shape.fixture)")
        }
        var isDirectory: ObjCBool = false
        for folder in [wire.fixtures.rest] + (wire.fixtures.stream.map { [$0] } ?? []) {
            #expect(FileManager.default.fileExists(atPath: Fixtures.url(folder).path, isDirectory: &isDirectory) && isDirectory.boolValue, "\(folder)")
        }
    }
}
