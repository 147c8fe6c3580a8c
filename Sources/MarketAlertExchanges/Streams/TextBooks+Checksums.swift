import Foundation
import MarketAlertCore

/// The checksums the exchanges compute over the levels' text as sent (see `TextBooks`).
extension TextBooks {
    /// OKX's and Bitget's checksum: the top `depth` levels interleaved best bid, best ask, second bid, …
    /// (a side that has run out is skipped), each `price:size` as sent, all joined by `:`; CRC-32.
    package func interleavedChecksum(_ market: Int, depth: Int = 25) -> UInt32 {
        let bids = min(depth, count(market, bid: true))
        let asks = min(depth, count(market, bid: false))
        return GatheredCRC.checksum { crc in
            for level in 0..<max(bids, asks) {
                for side in 0..<2 where level < (side == 0 ? bids : asks) {
                    withLevel(market, bid: side == 0, level) { _, _, priceText, sizeText in
                        if !crc.isEmpty { crc.append(UInt8(ascii: ":")) }
                        crc.append(priceText)
                        crc.append(UInt8(ascii: ":"))
                        crc.append(sizeText)
                    }
                }
            }
        }
    }

    /// Kraken's checksum: the top `depth` asks (best first) then the top `depth` bids, each price then size
    /// with the decimal point and the leading zeros removed, concatenated; CRC-32.
    package func krakenChecksum(_ market: Int, depth: Int = 10) -> UInt32 {
        GatheredCRC.checksum { crc in
            for side in 0..<2 {
                let bid = side == 1  // asks first
                for level in 0..<min(depth, count(market, bid: bid)) {
                    withLevel(market, bid: bid, level) { _, _, priceText, sizeText in
                        Self.digits(priceText, into: &crc)
                        Self.digits(sizeText, into: &crc)
                    }
                }
            }
        }
    }

    /// Feeds `text` without `.` and without leading zeros (`"0.00100000"` → `"100000"`).
    static func digits(_ text: UnsafeRawBufferPointer, into crc: inout GatheredCRC) {
        var start = 0
        while start < text.count, text[start] == UInt8(ascii: "0") || text[start] == UInt8(ascii: ".") { start += 1 }
        var end = start
        while end < text.count, text[end] != UInt8(ascii: ".") { end += 1 }
        crc.append(UnsafeRawBufferPointer(rebasing: text[start..<end]))
        if end + 1 < text.count { crc.append(UnsafeRawBufferPointer(rebasing: text[(end + 1)...])) }
    }
}
