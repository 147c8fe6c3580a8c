import Foundation
import MarketAlertCore
import MarketAlertExchanges

/// The seed inputs of the REST and stream targets, written from the registry's wire kits (their fixture
/// folders) so that the selector bytes always match `FuzzREST.decoders` and `FuzzStream.decoders`:
/// - REST: every `*.json` of each decoder's seed folders, prefixed with its selector byte;
/// - stream: each recorded frame file's first 40 frames (one per line) for its exchange's decoder, and for
///   the frame parser (selector `decoders.count`) the first 8 frames as one server byte stream, with a ping
///   and a fragmented message among them, read in chunks of a size the seed's second byte gives.
///
/// `scripts/fuzz` runs the fuzzing binary with `MARKETALERTD_FUZZ_SEEDS=<dir>` (see `FuzzEntry`); the replay
/// build does the same with `marketalertd-fuzz seeds DIR [FIXTURES]`.
enum FuzzSeeds {
    /// Writes `<output>/rest/…` and `<output>/stream/…` from `fixtures` (the repository's `Tests/Fixtures`);
    /// returns how many seeds each got.
    static func write(to output: URL, fixtures: URL) throws -> (rest: Int, stream: Int) {
        let rest = output.appendingPathComponent("rest")
        let stream = output.appendingPathComponent("stream")
        for directory in [rest, stream] { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) }
        var counts = (rest: 0, stream: 0)
        for (selector, decoder) in FuzzREST.decoders.enumerated() {
            for folder in decoder.seeds {
                for file in files(in: fixtures.appendingPathComponent(folder), suffix: ".json") {
                    let name = "\(folder.replacingOccurrences(of: "/", with: "-"))-\(file.lastPathComponent)-\(selector)"
                    try (Data([UInt8(selector)]) + Data(contentsOf: file)).write(to: rest.appendingPathComponent(name))
                    counts.rest += 1
                }
            }
        }
        let parser = UInt8(FuzzStream.decoders.count)
        for (selector, decoder) in FuzzStream.decoders.enumerated() {
            guard let folder = decoder.frames else { continue }
            let exchange = decoder.stream.exchange.rawValue
            for file in files(in: fixtures.appendingPathComponent(folder), suffix: "") {
                let lines = try Data(contentsOf: file).split(separator: UInt8(ascii: "\n")).filter { line in
                    line.contains { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }
                }.map { Array($0) }
                for (number, line) in lines.prefix(40).enumerated() {
                    try Data([UInt8(selector)] + line).write(to: stream.appendingPathComponent("\(exchange)-\(file.lastPathComponent)-\(number)"))
                    counts.stream += 1
                }
                var bytes = lines.prefix(8).flatMap { frame(0x1, $0) } + frame(0x9, Array("ka".utf8))
                if let first = lines.first {
                    bytes += frame(0x1, Array(first.prefix(10)), fin: false) + frame(0xA, []) + frame(0x0, Array(first.dropFirst(10)))
                }
                try Data([parser, UInt8(7 + selector)] + bytes).write(to: stream.appendingPathComponent("parser-\(exchange)-\(file.lastPathComponent)"))
                counts.stream += 1
            }
            // The kit's own ticker frame of a fuzzed market, as its server puts it on the wire (HTX: gzip;
            // Bitfinex: under the channel number its subscription answer bound in the fuzzed table).
            if let peer = ExchangeRegistry.standard[decoder.stream.exchange]?.wire.stream {
                let pair = MarketPair(base: FuzzStream.assets[0], quote: decoder.quote)
                let row = WireRow(
                    base: pair.base, quote: pair.quote, last: "68812.37", bid: "68812.36", ask: "68812.38", open: "68000.1", high: "69000.2",
                    low: "67000.3", volume: "1234.5", quoteVolume: "84950000.5", timeMillis: 1_773_110_820_000)
                let bytes: Data = switch peer.encode(peer.tickerFrame(row, decoder.stream.marketID(pair), 1, row.timeMillis)) {
                case .text(let text): Data(text.utf8)
                case .binary(let data): data
                }
                try (Data([UInt8(selector)]) + bytes).write(to: stream.appendingPathComponent("\(exchange)-kit-ticker"))
                counts.stream += 1
            }
        }
        return counts
    }

    /// The regular files of `directory` whose names end in `suffix`, sorted; none when it does not exist.
    static func files(in directory: URL, suffix: String) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(suffix) && !$0.hasPrefix(".") && !$0.hasSuffix(".md") }.sorted().map { directory.appendingPathComponent($0) }
    }

    /// One unmasked server frame.
    static func frame(_ opcode: UInt8, _ payload: [UInt8], fin: Bool = true) -> [UInt8] {
        var head: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        switch payload.count {
        case ..<126: head.append(UInt8(payload.count))
        case ..<65536: head += [126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default: head.append(127); head += (0..<8).reversed().map { UInt8((UInt64(payload.count) >> (8 * UInt64($0))) & 0xFF) }
        }
        return head + payload
    }
}
