import Foundation
import MarketAlertCore
import MarketAlertIO

/// The depth messages of Coinone, Gate and KuCoin for `DepthApplyBenchmark`, in each exchange's shape
/// (`CoinoneBook.swift`, `GateBook.swift`, `KuCoinBook.swift`): Gate and KuCoin diffs on a seeded REST
/// snapshot, Coinone whole-book pushes of 30 levels a side.
extension DepthApplyBenchmark {
    static func rowsCoinoneGateKuCoin(measure: (String, any ExchangeStreamProtocol, String?, [String]) -> Row) -> [Row] {
        var rows: [Row] = []
        let count = warmUp + measured
        if let gate = GateStream().keepingBooks(levels: levels) {
            rows.append(measure("gate order_book_update", gate, gateSnapshot(), (0..<count).map(gateDiff)))
        }
        if let kucoin = KuCoinStream().keepingBooks(levels: levels) {
            rows.append(measure("kucoin level2", kucoin, kucoinSnapshot(), (0..<count).map(kucoinChange)))
        }
        if let coinone = CoinoneStream().keepingBooks(levels: levels) {
            rows.append(measure("coinone ORDERBOOK", coinone, nil, (0..<count).map(coinonePush)))
        }
        return rows
    }

    /// Forty levels a side around 100,000 USDT, 0.5 apart, as of update 1.
    static func gateSnapshot() -> String {
        let bids = (0..<40).map { #"["\#(99_999.5 - Double($0) * 0.5)","1.0"]"# }.joined(separator: ",")
        let asks = (0..<40).map { #"["\#(100_000.5 + Double($0) * 0.5)","1.0"]"# }.joined(separator: ",")
        return #"{"id":1,"current":1750000000000,"update":1750000000000,"asks":[\#(asks)],"bids":[\#(bids)]}"#
    }

    /// Update `n + 2`: two levels a side change size, one goes and comes back on alternate updates.
    static func gateDiff(_ n: Int) -> String {
        let size = n % 2 == 0 ? "0" : "2.5"
        let near = Double(n % 10) * 0.5
        return #"{"time":1750000000,"time_ms":1750000000000,"channel":"spot.order_book_update","event":"update","result":{"t":1750000000000,"e":"depthUpdate","E":1750000000,"s":"BTC_USDT","U":\#(n + 2),"u":\#(n + 2),"#
            + #""b":[["\#(99_999.5 - near)","1.\#(n % 9 + 1)"],["\#(99_990.0)","\#(size)"]],"a":[["\#(100_000.5 + near)","1.\#(n % 7 + 1)"],["\#(100_010.0)","\#(size)"]]}}"#
    }

    static func kucoinSnapshot() -> String {
        let bids = (0..<40).map { #"["\#(99_999.5 - Double($0) * 0.5)","1.0"]"# }.joined(separator: ",")
        let asks = (0..<40).map { #"["\#(100_000.5 + Double($0) * 0.5)","1.0"]"# }.joined(separator: ",")
        return #"{"code":"200000","data":{"time":1750000000000,"sequence":"1","bids":[\#(bids)],"asks":[\#(asks)]}}"#
    }

    /// Message `n + 2` (one change a side, as KuCoin sends them, plus a level that goes and comes back).
    static func kucoinChange(_ n: Int) -> String {
        let size = n % 2 == 0 ? "0" : "2.5"
        let near = Double(n % 10) * 0.5
        let seq = n + 2
        return #"{"type":"message","topic":"/market/level2:BTC-USDT","subject":"trade.l2update","data":{"sequenceStart":\#(seq),"sequenceEnd":\#(seq),"symbol":"BTC-USDT","#
            + #""changes":{"asks":[["\#(100_000.5 + near)","1.\#(n % 7 + 1)","\#(seq)"],["\#(100_010.0)","\#(size)","\#(seq)"]],"bids":[["\#(99_999.5 - near)","1.\#(n % 9 + 1)","\#(seq)"]]},"time":1750000000000}}"#
    }

    static func coinonePush(_ n: Int) -> String {
        let asks = (0..<30).map { #"{"price":"\#(100_000_000 + $0 * 1000)","qty":"0.\#(n % 9 + 1)"}"# }.joined(separator: ",")
        let bids = (0..<30).map { #"{"price":"\#(99_999_000 - $0 * 1000)","qty":"0.\#(n % 7 + 1)"}"# }.joined(separator: ",")
        return #"{"response_type":"DATA","channel":"ORDERBOOK","data":{"quote_currency":"KRW","target_currency":"BTC","timestamp":1750000000000,"id":"\#(1_750_000_000_000_000 + n)","asks":[\#(asks)],"bids":[\#(bids)]}}"#
    }
}
