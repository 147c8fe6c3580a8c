import Foundation
import MarketAlertCore
import MarketAlertIO

/// Stream frame decode-and-apply per message: a Binance `bookTicker` frame (the documentation's example,
/// ~110 bytes) decoded byte by byte into the market table of 50 watched symbols and turned into the merged
/// `Quote`, as `WebSocketStreamSource` does for every frame. Timed in batches of 1,000 frames (a single
/// frame is too short for the clock); the figure is per frame. Budget: median ≤ 2 µs.
enum StreamDecodeBenchmark {
    static let budget = 2e-6
    static let batch = 1_000

    static let frame = #"{"u":400900217,"s":"BNBUSDT","b":"25.35190000","B":"31.21000000","a":"25.36520000","A":"40.66000000"}"#

    struct WrongResult: Error, CustomStringConvertible {
        var description: String
    }

    static func run(assets: [String], iterations: Int) throws -> (String, Verdict) {
        let stream = BinanceStream()
        var pairs = Set(assets.map { MarketPair(base: $0, quote: "USDT") })
        pairs.insert(MarketPair(base: "BNB", quote: "USDT"))
        var table = StreamMarketTable(pairs: pairs, marketID: stream.marketID)
        let bytes = Array(frame.utf8)
        let receivedAt = Date()

        // The decode must produce the documented bid and ask, or the timing is of something else.
        table.beginFrame()
        let result = bytes.withUnsafeBytes { stream.decode($0, into: &table, receivedAt: receivedAt) }
        guard result == .data, let index = table.touched.first,
              table.quote(index, exchange: .binance, receivedAt: receivedAt).bid?.exact == Decimal(string: "25.3519")
        else { throw WrongResult(description: "bookTicker frame decoded to \(result)") }

        let samples = bytes.withUnsafeBytes { frameBytes in
            Stopwatch.measure(warmup: max(5, iterations / 10), iterations: iterations) {
                var checksum = 0
                for _ in 0..<batch {
                    table.beginFrame()
                    if stream.decode(frameBytes, into: &table, receivedAt: receivedAt) == .data {
                        for touched in table.touched {
                            let quote = table.quote(touched, exchange: .binance, receivedAt: receivedAt)
                            checksum &+= quote.bid == nil ? 0 : 1
                        }
                    }
                }
                Sink.consume(checksum)
            }
        }
        let perFrame = Samples(samples.sorted.map { $0 / Double(batch) })
        let rows = [
            ["stream frame", "bytes", "watched", "batches", "min", "median", "p90", "max"],
            ["binance bookTicker → quote", "\(bytes.count)", "\(pairs.count)", "\(perFrame.count)",
             ns(perFrame.min), ns(perFrame.median), ns(perFrame.p90), ns(perFrame.max)],
        ]
        let verdict = Verdict(
            pass: perFrame.median <= budget,
            text: "stream decode binance bookTicker: median \(ns(perFrame.median)) per frame (budget \(ns(budget)))")
        return (Report.table(rows), verdict)
    }

    static func ns(_ seconds: Double) -> String { String(format: "%.0f ns", seconds * 1e9) }
}
