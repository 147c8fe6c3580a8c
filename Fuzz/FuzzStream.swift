import Foundation
import MarketAlertCore
import MarketAlertExchanges
import NIOCore

/// libFuzzer target for what a stream connection reads: each registry exchange's stream decoder and the WebSocket
/// frame parser. The first byte of an input picks the target (`decoders` in order, then the parser), the
/// rest is the frame or the byte stream.
///
/// A decoder may refuse anything, but must never crash, and:
/// - a frame it calls market data touched at least one watched market, and those markets hold plausible
///   prices afterwards;
/// - a frame it does not call market data left every market as it was (a half-read frame must not leave a
///   price behind for the next quote of that market).
///
/// The parser must parse any split of a byte stream exactly as the whole: the same messages and control
/// frames in the same order, and the same failure. The stream is read in chunks of a size the second byte
/// gives, and cut in two at up to 32 places: a read boundary must never change what arrives. No message
/// is over the limit.
///
/// Run by `scripts/fuzz` (see `FuzzEntry.swift`).
enum FuzzStream {
    static let receivedAt = Date(timeIntervalSince1970: 1_773_110_820)

    /// The registry's stream decoders and the quote currency of their recorded frames, in the registry's
    /// order: the selector order (`FuzzSeeds` seeds each from its exchange's recorded frames).
    static let decoders: [(stream: any ExchangeStreamProtocol, quote: String, frames: String?)] =
        ExchangeRegistry.standard.listed.compactMap { descriptor in
            descriptor.stream.map { ($0, descriptor.wire.recordedQuote, descriptor.wire.fixtures.stream) }
        }
    static let assets = ["BTC", "ETH", "XRP", "SOL", "DOGE", "SKL", "DASH"]
    static let parserLimit = 4096

    static func run(_ input: Data) {
        guard let selector = input.first else { return }
        let index = Int(selector) % (decoders.count + 1)
        if index == decoders.count {
            parse(input.dropFirst())
        } else {
            decode(input.dropFirst(), with: decoders[index].stream, table: tables[index])
        }
    }

    /// Each decoder's table of the fuzzed markets after its exchange's answers to their subscription, as on a
    /// connection (Bitfinex binds its channel numbers in them): made once, copied for each input.
    static let tables: [StreamMarketTable] = decoders.map { decoder in
        let stream = decoder.stream
        var table = StreamMarketTable(pairs: Set(assets.map { MarketPair(base: $0, quote: decoder.quote) }), marketID: stream.marketID)
        guard let peer = ExchangeRegistry.standard[stream.exchange]?.wire.stream else { return table }
        for message in stream.subscription(for: table.markets).messages {
            for reply in peer.persona(message, PersonaKnobs()) {
                let bytes: Data = switch reply {
                case .text(let text): Data(text.utf8)
                case .binary(let data): data
                }
                table.beginFrame()
                _ = bytes.withUnsafeBytes { stream.decode($0, into: &table, receivedAt: receivedAt) }
            }
        }
        return table
    }

    static func decode(_ frame: Data, with stream: any ExchangeStreamProtocol, table: StreamMarketTable) {
        var table = table
        table.beginFrame()
        let before = table.entries.map(Snapshot.init)
        let outcome = frame.withUnsafeBytes { stream.decode($0, into: &table, receivedAt: receivedAt) }
        if case .data = outcome {
            precondition(!table.touched.isEmpty, "\(stream.exchange): market data that touched no market")
            for index in table.touched {
                let entry = table.entries[index]
                for price in [entry.bid, entry.ask, entry.last].compactMap({ $0 }) { FuzzREST.check(price) }
            }
        } else {
            precondition(table.entries.map(Snapshot.init) == before, "\(stream.exchange): \(outcome) changed a market")
        }
    }

    /// What a market holds, comparable.
    struct Snapshot: Equatable {
        var bid: Decimal?
        var ask: Decimal?
        var last: Decimal?
        var exchangeTime: Date?

        init(_ entry: StreamMarketTable.Entry) {
            bid = entry.bid?.exact
            ask = entry.ask?.exact
            last = entry.last?.exact
            exchangeTime = entry.exchangeTime
        }
    }

    /// One delivery of the parser, comparable.
    enum Delivery: Equatable {
        case message([UInt8], compressed: Bool)
        case ping([UInt8])
        case pong
        case close([UInt8])
        case failure(UInt16)

        init(_ output: WebSocketFrameParser.Output) {
            switch output {
            case .message(let buffer, let compressed):
                precondition(buffer.readableBytes <= FuzzStream.parserLimit, "a message over the limit")
                self = .message(Array(buffer.readableBytesView), compressed: compressed)
            case .ping(let buffer): self = .ping(Array(buffer.readableBytesView))
            case .pong: self = .pong
            case .close(let buffer): self = .close(Array(buffer.readableBytesView))
            }
        }
    }

    static func parse(_ input: Data) {
        guard let cutByte = input.first else { return }
        let bytes = Array(input.dropFirst())
        let whole = deliveries(of: [bytes[...]])
        // Reads of `cut` bytes each (1 to 64).
        let cut = Int(cutByte % 64) + 1
        var chunks: [ArraySlice<UInt8>] = []
        var start = 0
        while start < bytes.count {
            chunks.append(bytes[start..<min(start + cut, bytes.count)])
            start += cut
        }
        precondition(deliveries(of: chunks) == whole, "reads of \(cut) bytes parse differently from the whole")
        // At most 32 cut positions: every position of a long input would make one run quadratic (a slow run
        // is a libFuzzer timeout, reported like a crash).
        for position in stride(from: 1, to: bytes.count, by: max(cut, bytes.count / 32 + 1)) {
            let split = deliveries(of: [bytes[..<position], bytes[position...]])
            precondition(split == whole, "a read boundary at byte \(position) parses differently from the whole")
        }
    }

    static func deliveries(of reads: [ArraySlice<UInt8>]) -> [Delivery] {
        var parser = WebSocketFrameParser(maxMessageBytes: parserLimit)
        var out: [Delivery] = []
        for read in reads {
            var buffer = ByteBufferAllocator().buffer(capacity: read.count)
            buffer.writeBytes(read)
            do throws(WebSocketFrameParser.Failure) {
                try parser.parse(buffer) { out.append(Delivery($0)) }
            } catch {
                out.append(.failure(error.code))
                return out
            }
        }
        return out
    }
}
