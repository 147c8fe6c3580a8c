import CAllocationCounter
import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport

/// v3 (#27): applying one depth message of the exchanges whose books carry a CRC-32 over the levels' text
/// (OKX and Bitget `books`, Kraken v2 `book`), checksum checked, to a kept book of 20 levels. The messages
/// are real ones (the recorded fixtures: a snapshot and its changes, replayed in order again and again, so
/// every checksum holds; the snapshots, of up to 800 levels, are in the count and in the median); each is
/// decoded into the market table as the stream's intake does. Heap allocations are counted on this thread
/// after warm-up. Budget: 0 allocations and ≤ 1 µs median per message (release build).
enum ChecksumDepthBenchmark {
    static let levels = 20
    static let warmUp = 200
    static let measured = 2000

    struct Row {
        var name: String
        var allocations: UInt64
        var median: Duration
        var synced: Int
    }

    static func run() throws -> (String, [Verdict]) {
        guard allocation_counter_available() != 0 else { return ("depth (checksummed): allocations not countable on this platform", []) }
        var rows: [Row] = []
        if let okx = OKXStream().keepingBooks(levels: levels) {
            rows.append(try measure("okx books", okx, pair: MarketPair(base: "BTC", quote: "USDT"), file: "streams/okx/books-BTC-USDT-20220513-cryptofeed.jsonl"))
        }
        if let bitget = BitgetStream().keepingBooks(levels: levels) {
            rows.append(try measure("bitget books", bitget, pair: MarketPair(base: "EOS", quote: "USDT"), file: "streams/bitget/books-EOSUSDT-20220407-cryptofeed-v1.jsonl"))
        }
        // Recorded at depth 1000: replayed at that depth (Kraken cuts the book to it after each message).
        if let kraken = KrakenStream().keepingBooks(levels: 600) {
            rows.append(try measure("kraken book (depth 1000)", kraken, pair: MarketPair(base: "BTC", quote: "CHF"), file: "streams/kraken/book-v2-BTC-CHF-GRT-ETH-20210417-cryptofeed-v1.jsonl", depthLevels: 600))
        }
        var text = "  adapter                   synced  allocations  median\n"
        var verdicts: [Verdict] = []
        for row in rows {
            let micros = Double(row.median.components.attoseconds) / 1e12 + Double(row.median.components.seconds) * 1e6
            let synced = String(row.synced)
            let allocations = String(row.allocations)
            text += "  " + row.name.padding(toLength: 24, withPad: " ", startingAt: 0)
                + String(repeating: " ", count: max(0, 8 - synced.count)) + synced
                + String(repeating: " ", count: max(0, 13 - allocations.count)) + allocations + String(format: "%8.2f µs", micros) + "\n"
            verdicts.append(Verdict(
                pass: row.allocations == 0 && row.synced == measured,
                text: "depth \(row.name): \(row.allocations) allocations over \(measured) messages, \(row.synced) checksums held (budget 0)"))
            verdicts.append(Verdict(pass: micros <= 1, text: String(format: "depth \(row.name): median %.2f µs per message (budget 1 µs)", micros)))
        }
        return (text, verdicts)
    }

    private static func measure(
        _ name: String, _ stream: some ExchangeStreamProtocol, pair: MarketPair, file: String, depthLevels: Int = levels
    ) throws -> Row {
        let market = stream.marketID(pair)
        let frames = try Fixtures.string(file).split(separator: "\n").filter { $0.contains("\"\(market)\"") }.map { Array($0.utf8) }
        var table = StreamMarketTable(pairs: [pair], marketID: stream.marketID, depthLevels: depthLevels)
        let received = Date(timeIntervalSince1970: 1_750_000_000)
        for index in 0..<warmUp {
            table.beginFrame()
            _ = frames[index % frames.count].withUnsafeBytes { stream.decode($0, into: &table, receivedAt: received) }
        }
        var times = [Duration](repeating: .zero, count: measured)
        var synced = 0
        let clock = ContinuousClock()
        // Start the measured run on a snapshot, so every message applies in order.
        let offset = (frames.count - warmUp % frames.count) % frames.count + warmUp
        allocation_counter_start()
        for index in 0..<measured {
            let started = clock.now
            table.beginFrame()
            _ = frames[(offset + index) % frames.count].withUnsafeBytes { stream.decode($0, into: &table, receivedAt: received) }
            times[index] = clock.now - started
            if table.book(0)?.isSynced == true { synced += 1 }
        }
        let allocations = allocation_counter_stop()
        times.sort()
        return Row(name: name, allocations: allocations, median: times[measured / 2], synced: synced)
    }
}
