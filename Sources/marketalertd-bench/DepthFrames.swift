import Foundation
import MarketAlertCore
import MarketAlertIO

/// Depth messages in each exchange's wire shape, as its book decoder (`<Name>Stream`, `<Name>Book`,
/// `OKXStyleBooks`) reads them, built from a `DepthLadder` after update `n`:
/// - Binance `depthUpdate` diffs `U = u = n` over the REST `/api/v3/depth` snapshot (`lastUpdateId`);
/// - Bybit `orderbook.50` snapshot (`u` 1), then deltas with `u = n`, each the last plus one;
/// - OKX and Bitget `books` snapshot then `update`s, each with the CRC-32 of the book after it;
/// - Kraken v2 `book` snapshot then `update`s with Kraken's CRC-32;
/// - Upbit (`SIMPLE` keys) and Bithumb (`DEFAULT` keys, microsecond time) full `orderbook` pushes of 30 units;
/// - Coinbase's REST `/products/<id>/book?level=2` (its books are polled, its stream carries tickers).
/// Text that depends only on the ladder and the update's parity (checksums, the Korean pushes' units) is
/// built once per market (`Market`), so the feeder's cost per message is a short interpolation.
enum DepthFrames {
    /// One fed market: its ladders (the latency market also has a raised one) and the pre-built parts.
    struct Market: Sendable {
        let exchange: ExchangeID
        let symbol: String
        let ladder: DepthLadder
        /// The latency market's raised book (nil for every other market).
        let raised: DepthLadder?
        /// Checksums after an even and an odd update (OKX, Bitget: signed; Kraken: unsigned), as text.
        let checksums: [String]
        /// Upbit and Bithumb: the units of a push for [even, odd, raised even, raised odd].
        let units: [String]

        init(exchange: ExchangeID, symbol: String, usdPrice: Double, quote: String, latency: Bool) {
            self.exchange = exchange
            self.symbol = symbol
            let depth = exchange == .kraken ? 25 : 30
            let ladder = DepthLadder(usdPrice: usdPrice, quote: quote, depth: depth)
            self.ladder = ladder
            raised = latency ? DepthLadder(usdPrice: usdPrice, quote: quote, depth: depth, raised: true) : nil
            switch exchange {
            case .okx, .bitget: checksums = (0..<2).map { String(ladder.interleavedChecksum(after: $0)) }
            case .kraken: checksums = (0..<2).map { String(ladder.krakenChecksum(after: $0)) }
            default: checksums = []
            }
            let simple = exchange == .upbit
            func units(_ ladder: DepthLadder, _ n: Int) -> String {
                zip(ladder.levels(bid: false, after: n), ladder.levels(bid: true, after: n)).map { ask, bid in
                    simple ? #"{"ap":\#(ask.0),"as":\#(ask.1),"bp":\#(bid.0),"bs":\#(bid.1)}"#
                        : #"{"ask_price":\#(ask.0),"bid_price":\#(bid.0),"ask_size":\#(ask.1),"bid_size":\#(bid.1)}"#
                }.joined(separator: ",")
            }
            let korean = exchange == .upbit || exchange == .bithumb
            let raised = raised
            self.units = korean ? [units(ladder, 0), units(ladder, 1)] + (raised.map { [units($0, 0), units($0, 1)] } ?? []) : []
        }
    }

    static func millis() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// The first message after subscribing (nil: the exchange sends none; Binance's book comes from REST,
    /// Upbit's and Bithumb's every push is whole, Coinbase's is polled).
    static func snapshot(_ m: Market) -> String? {
        let ms = millis()
        let bids = m.ladder.levels(bid: true, after: 0)
        let asks = m.ladder.levels(bid: false, after: 0)
        switch m.exchange {
        case .bybit:
            return #"{"topic":"orderbook.50.\#(m.symbol)","type":"snapshot","ts":\#(ms),"data":{"s":"\#(m.symbol)","b":\#(pairs(bids)),"a":\#(pairs(asks)),"u":1,"seq":1},"cts":\#(ms)}"#
        case .okx:
            return #"{"arg":{"channel":"books","instId":"\#(m.symbol)"},"action":"snapshot","data":[{"asks":\#(okxLevels(asks)),"bids":\#(okxLevels(bids)),"ts":"\#(ms)","checksum":\#(m.checksums[0]),"seqId":1,"prevSeqId":-1}]}"#
        case .bitget:
            return #"{"action":"snapshot","arg":{"instType":"SPOT","channel":"books","instId":"\#(m.symbol)"},"data":[{"asks":\#(pairs(asks)),"bids":\#(pairs(bids)),"checksum":\#(m.checksums[0]),"ts":"\#(ms)"}],"ts":\#(ms)}"#
        case .kraken:
            return #"{"channel":"book","type":"snapshot","data":[{"symbol":"\#(m.symbol)","bids":\#(krakenLevels(bids)),"asks":\#(krakenLevels(asks)),"checksum":\#(m.checksums[0]),"timestamp":"\#(krakenTime())"}]}"#
        default:
            return nil
        }
    }

    /// Update `n` (n ≥ 1) of market `m`; `high`: the latency market's raised book (Upbit, Bithumb only).
    static func update(_ m: Market, _ n: Int, high: Bool = false) -> String {
        let ms = millis()
        let parity = n % 2
        let book = m.ladder
        let bid = [(book.bidPrices[0], book.topSize(n))]
        let ask = [(book.askPrices[0], book.topSize(n))]
        switch m.exchange {
        case .binance:
            return #"{"e":"depthUpdate","E":\#(ms),"s":"\#(m.symbol)","U":\#(n),"u":\#(n),"b":\#(pairs(bid)),"a":\#(pairs(ask))}"#
        case .bybit:
            return #"{"topic":"orderbook.50.\#(m.symbol)","type":"delta","ts":\#(ms),"data":{"s":"\#(m.symbol)","b":\#(pairs(bid)),"a":\#(pairs(ask)),"u":\#(n + 1),"seq":\#(n + 1)},"cts":\#(ms)}"#
        case .okx:
            return #"{"arg":{"channel":"books","instId":"\#(m.symbol)"},"action":"update","data":[{"asks":\#(okxLevels(ask)),"bids":\#(okxLevels(bid)),"ts":"\#(ms)","checksum":\#(m.checksums[parity]),"seqId":\#(n + 1),"prevSeqId":\#(n)}]}"#
        case .bitget:
            return #"{"action":"update","arg":{"instType":"SPOT","channel":"books","instId":"\#(m.symbol)"},"data":[{"asks":\#(pairs(ask)),"bids":\#(pairs(bid)),"checksum":\#(m.checksums[parity]),"ts":"\#(ms)"}],"ts":\#(ms)}"#
        case .kraken:
            return #"{"channel":"book","type":"update","data":[{"symbol":"\#(m.symbol)","bids":\#(krakenLevels(bid)),"asks":\#(krakenLevels(ask)),"checksum":\#(m.checksums[parity]),"timestamp":"\#(krakenTime())"}]}"#
        case .upbit:
            let units = m.units[(high && m.units.count == 4 ? 2 : 0) + parity]
            return #"{"ty":"orderbook","cd":"\#(m.symbol)","tms":\#(ms),"tas":1000.0,"tbs":1000.0,"obu":[\#(units)],"st":"REALTIME","lv":0}"#
        case .bithumb:
            let units = m.units[(high && m.units.count == 4 ? 2 : 0) + parity]
            return #"{"type":"orderbook","code":"\#(m.symbol)","timestamp":\#(ms * 1000),"total_ask_size":1000.0,"total_bid_size":1000.0,"orderbook_units":[\#(units)],"stream_type":"REALTIME","level":0}"#
        default:
            return ""
        }
    }

    /// Binance's `/api/v3/depth` answer for the book after update `lastUpdateId`.
    static func binanceSnapshot(_ m: Market, lastUpdateId: Int) -> String {
        #"{"lastUpdateId":\#(lastUpdateId),"bids":\#(pairs(m.ladder.levels(bid: true, after: lastUpdateId))),"asks":\#(pairs(m.ladder.levels(bid: false, after: lastUpdateId)))}"#
    }

    /// Coinbase's `/products/<id>/book?level=2` answer (the resting book).
    static func coinbaseBook(_ m: Market, sequence: Int) -> String {
        func side(_ levels: [(String, String)]) -> String { "[" + levels.map { #"["\#($0.0)","\#($0.1)",3]"# }.joined(separator: ",") + "]" }
        let time = Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(Date())
        return #"{"bids":\#(side(m.ladder.levels(bid: true, after: 0))),"asks":\#(side(m.ladder.levels(bid: false, after: 0))),"sequence":\#(sequence),"auction_mode":false,"auction":null,"time":"\#(time)"}"#
    }

    private static func pairs(_ levels: [(String, String)]) -> String {
        "[" + levels.map { #"["\#($0.0)","\#($0.1)"]"# }.joined(separator: ",") + "]"
    }

    private static func okxLevels(_ levels: [(String, String)]) -> String {
        "[" + levels.map { #"["\#($0.0)","\#($0.1)","0","1"]"# }.joined(separator: ",") + "]"
    }

    private static func krakenLevels(_ levels: [(String, String)]) -> String {
        "[" + levels.map { #"{"price":\#($0.0),"qty":\#($0.1)}"# }.joined(separator: ",") + "]"
    }

    /// Kraken v2's RFC 3339 UTC time with microseconds.
    private static func krakenTime() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = time_t(now.tv_sec)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                      parts.tm_hour, parts.tm_min, parts.tm_sec, Int(now.tv_nsec / 1000))
    }
}
