import Foundation
import MarketAlertIO

/// One market's order book as the depth feeder serves it: `depth` levels a side, 1 basis point apart around
/// the asset's price (in KRW on Upbit and Bithumb), each worth about 2,000 USD, so a 10,000 USD notional walks
/// five levels. Every change sets the best bid's and best ask's size, alternating between two sizes with the
/// update's parity, so the book after update `n` is a function of `n` (what Binance's REST snapshot and each
/// exchange's checksum are built from). `raised` moves the whole book up 3% (the latency market's high state).
struct DepthLadder: Sendable {
    let bidPrices: [String]
    let askPrices: [String]
    /// The resting size of every level, and the best level's alternate size (odd updates).
    let size: String
    let altSize: String

    static let stepFraction = 0.0001
    static let levelUSD = 2000.0
    static let raise = 1.03

    init(usdPrice: Double, quote: String, depth: Int, raised: Bool = false) {
        let mid = usdPrice * (quote == "KRW" ? BenchMarkets.usdKRW : 1) * (raised ? Self.raise : 1)
        let places = DecimalFormat.places(for: mid)
        bidPrices = (1...depth).map { DecimalFormat.fixed(mid * (1 - Double($0) * Self.stepFraction), places: places) }
        askPrices = (1...depth).map { DecimalFormat.fixed(mid * (1 + Double($0) * Self.stepFraction), places: places) }
        let units = Self.levelUSD / max(usdPrice, 1e-12)
        size = DecimalFormat.fixed(units, places: 8)
        altSize = DecimalFormat.fixed(units * 1.5, places: 8)
    }

    /// The best level's size after update `n` (the rest always rest at `size`).
    func topSize(_ n: Int) -> String { n % 2 == 0 ? size : altSize }

    /// `(price, size)` of every level a side after update `n`, best first.
    func levels(bid: Bool, after n: Int) -> [(String, String)] {
        (bid ? bidPrices : askPrices).enumerated().map { ($0.element, $0.offset == 0 ? topSize(n) : size) }
    }

    /// OKX's and Bitget's checksum after update `n`: the top 25 levels interleaved `bid:ask`, `price:size`
    /// as sent, joined by `:`; CRC-32 as a signed 32-bit integer.
    func interleavedChecksum(after n: Int) -> Int32 {
        let bids = levels(bid: true, after: n)
        let asks = levels(bid: false, after: n)
        var parts: [String] = []
        for level in 0..<25 {
            if level < bids.count { parts += [bids[level].0, bids[level].1] }
            if level < asks.count { parts += [asks[level].0, asks[level].1] }
        }
        return Int32(bitPattern: Array(parts.joined(separator: ":").utf8).withUnsafeBytes { CRC32.checksum($0) })
    }

    /// Kraken's checksum after update `n`: the top 10 asks then the top 10 bids, price then size each with
    /// the decimal point and leading zeros removed, concatenated; CRC-32, unsigned.
    func krakenChecksum(after n: Int) -> UInt32 {
        func digits(_ text: String) -> String {
            let plain = text.replacingOccurrences(of: ".", with: "")
            return String(plain.drop { $0 == "0" })
        }
        var text = ""
        for bid in [false, true] {
            for (price, size) in levels(bid: bid, after: n).prefix(10) { text += digits(price) + digits(size) }
        }
        return Array(text.utf8).withUnsafeBytes { CRC32.checksum($0) }
    }
}
