import CAllocationCounter
import Foundation
import MarketAlertCore
import MarketAlertIO

/// v3 (#27): applying one depth message to a kept book of 20 levels (40 held per side), per exchange that
/// streams books from this folder's adapters: Binance `depthUpdate` diffs on a seeded snapshot, Bybit
/// `orderbook.50` deltas, Upbit and Bithumb full pushes of 30 units. Each message is decoded into the
/// market table as the stream's intake does (`beginFrame`, `decode`); heap allocations are counted on this
/// thread after warm-up. Budget: 0 allocations and ≤ 1 µs median per message (release build).
enum DepthApplyBenchmark {
    static let levels = 20
    static let warmUp = 200
    static let measured = 2000

    struct Row {
        var name: String
        var allocations: UInt64
        var median: Duration
        var applied: Int
    }

    static func run() -> (String, [Verdict]) {
        guard allocation_counter_available() != 0 else { return ("depth: allocations not countable on this platform", []) }
        var rows: [Row] = []
        if let binance = BinanceStream().keepingBooks(levels: levels) {
            rows.append(measure("binance depth@100ms", binance, seed: binanceSnapshot(), frames: (0..<(warmUp + measured)).map(binanceDiff)))
        }
        if let bybit = BybitStream().keepingBooks(levels: levels) {
            let frames = [bybitFrame(0, snapshot: true)] + (1..<(warmUp + measured)).map { bybitFrame($0, snapshot: false) }
            rows.append(measure("bybit orderbook.50", bybit, seed: nil, frames: frames))
        }
        if let upbit = UpbitStream(ticket: "bench").keepingBooks(levels: levels) {
            rows.append(measure("upbit orderbook.30", upbit, seed: nil, frames: (0..<(warmUp + measured)).map { upbitStyle($0, code: "KRW-BTC") }))
        }
        if let bithumb = BithumbStream(ticket: "bench").keepingBooks(levels: levels) {
            rows.append(measure("bithumb orderbook.30", bithumb, seed: nil, frames: (0..<(warmUp + measured)).map { upbitStyle($0, code: "KRW-BTC") }))
        }
        rows += rowsCoinoneGateKuCoin { name, stream, seed, frames in measure(name, stream, seed: seed, frames: frames) }
        var text = "  adapter               applied  allocations  median\n"
        var verdicts: [Verdict] = []
        for row in rows {
            let micros = Double(row.median.components.attoseconds) / 1e12 + Double(row.median.components.seconds) * 1e6
            text += "  " + row.name.padding(toLength: 22, withPad: " ", startingAt: 0)
                + String(row.applied).leftPad(7) + String(row.allocations).leftPad(13) + String(format: "%8.2f µs", micros) + "\n"
            verdicts.append(Verdict(pass: row.allocations == 0 && row.applied == measured, text: "depth \(row.name): \(row.allocations) allocations over \(measured) messages (budget 0)"))
            verdicts.append(Verdict(pass: micros <= 1, text: String(format: "depth \(row.name): median %.2f µs per message (budget 1 µs)", micros)))
        }
        return (text, verdicts)
    }

    private static func measure(_ name: String, _ stream: some ExchangeStreamProtocol, seed: String?, frames: [String]) -> Row {
        let pair = MarketPair(base: "BTC", quote: [.upbit, .bithumb, .coinone].contains(stream.exchange) ? "KRW" : "USDT")
        var table = StreamMarketTable(pairs: [pair], marketID: stream.marketID, depthLevels: levels)
        let received = Date(timeIntervalSince1970: 1_750_000_000)
        let bytes = frames.map { Array($0.utf8) }
        if let seed {
            // The first diff asks for the snapshot; the snapshot seeds the book.
            table.beginFrame()
            _ = bytes[0].withUnsafeBytes { stream.decode($0, into: &table, receivedAt: received) }
            _ = table.takeBookRequests()
            table.beginFrame()
            _ = Array(seed.utf8).withUnsafeBytes { stream.seedBook($0, at: 0, into: &table, receivedAt: received) }
        }
        for frame in bytes.prefix(warmUp) {
            table.beginFrame()
            _ = frame.withUnsafeBytes { stream.decode($0, into: &table, receivedAt: received) }
        }
        var times = [Duration](repeating: .zero, count: measured)
        var applied = 0
        let clock = ContinuousClock()
        allocation_counter_start()
        for index in 0..<measured {
            let started = clock.now
            table.beginFrame()
            let frame = bytes[warmUp + index].withUnsafeBytes { stream.decode($0, into: &table, receivedAt: received) }
            times[index] = clock.now - started
            if frame == .data { applied += 1 }
        }
        let allocations = allocation_counter_stop()
        times.sort()
        return Row(name: name, allocations: allocations, median: times[measured / 2], applied: applied)
    }

    /// Forty levels a side around 100,000 USDT, 0.5 apart, as of update 1.
    private static func binanceSnapshot() -> String {
        let bids = (0..<40).map { #"["\#(99_999.5 - Double($0) * 0.5)","1.0"]"# }.joined(separator: ",")
        let asks = (0..<40).map { #"["\#(100_000.5 + Double($0) * 0.5)","1.0"]"# }.joined(separator: ",")
        return #"{"lastUpdateId":1,"bids":[\#(bids)],"asks":[\#(asks)]}"#
    }

    /// Diff `n` (update `n + 2`): two levels a side change size, one goes and comes back on alternate diffs.
    private static func binanceDiff(_ n: Int) -> String {
        let size = n % 2 == 0 ? "0.00000000" : "2.50000000"
        let near = Double(n % 10) * 0.5
        return #"{"e":"depthUpdate","E":1750000000000,"s":"BTCUSDT","U":\#(n + 2),"u":\#(n + 2),"#
            + #""b":[["\#(99_999.5 - near)","1.\#(n % 9 + 1)"],["\#(99_990.0)","\#(size)"]],"#
            + #""a":[["\#(100_000.5 + near)","1.\#(n % 7 + 1)"],["\#(100_010.0)","\#(size)"]]}"#
    }

    private static func bybitFrame(_ n: Int, snapshot: Bool) -> String {
        let count = snapshot ? 50 : 2
        let bids = (0..<count).map { #"["\#(99_999.5 - Double($0) * 0.5)","1.\#(n % 9 + 1)"]"# }.joined(separator: ",")
        let asks = (0..<count).map { #"["\#(100_000.5 + Double($0) * 0.5)","1.\#(n % 7 + 1)"]"# }.joined(separator: ",")
        return #"{"topic":"orderbook.50.BTCUSDT","type":"\#(snapshot ? "snapshot" : "delta")","ts":1750000000000,"data":{"s":"BTCUSDT","b":[\#(bids)],"a":[\#(asks)],"u":\#(n + 1),"seq":\#(n + 1)}}"#
    }

    private static func upbitStyle(_ n: Int, code: String) -> String {
        let units = (0..<30).map { level in
            #"{"ask_price":\#(100_000_000 + level * 1000),"bid_price":\#(99_999_000 - level * 1000),"ask_size":0.\#(n % 9 + 1),"bid_size":0.\#(n % 7 + 1)}"#
        }.joined(separator: ",")
        return #"{"type":"orderbook","code":"\#(code)","timestamp":1750000000000,"orderbook_units":[\#(units)]}"#
    }
}

extension String {
    fileprivate func leftPad(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
