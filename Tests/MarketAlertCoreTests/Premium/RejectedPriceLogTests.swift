import Foundation
import MarketAlertCore
import Testing

/// The warning about rejected price rows: at once the first time, then at most once per interval per source.
@Suite struct RejectedPriceLogTests {
    let start = Date(timeIntervalSince1970: 1_773_110_820)

    @Test func firstAtOnceThenSummedOncePerInterval() throws {
        var log = RejectedPriceLog(interval: .seconds(600))
        let logged = log.record(source: "binance", rows: 1, sample: #"BTCUSDT last "1e39""#, now: start)
        let first = try #require(logged)
        #expect(first.hasPrefix(#"binance: 1 ticker row with an unusable price (e.g. BTCUSDT last "1e39"); those prices were ignored"#))
        // Every 5 s for almost ten minutes: nothing logged, all counted.
        for second in stride(from: 5, to: 600, by: 5) {
            #expect(log.record(source: "binance", rows: 2, sample: "ETHUSDT bid \"NaN\"", now: start.addingTimeInterval(Double(second))) == nil)
        }
        #expect(log.totals["binance"] == 1 + 2 * 119)
        // Another source is logged on its own schedule.
        #expect(log.record(source: "upbit", rows: 1, sample: nil, now: start.addingTimeInterval(10)) != nil)
        let later = log.record(source: "binance", rows: 2, sample: nil, now: start.addingTimeInterval(600))
        let summary = try #require(later)
        #expect(summary.contains("binance: 240 ticker rows with an unusable price over 120 polls"), "\(summary)")
        #expect(summary.contains(#"e.g. ETHUSDT bid "NaN""#))
        #expect(summary.contains("(241 since start"))
        #expect(log.record(source: "binance", rows: 0, sample: nil, now: start.addingTimeInterval(5000)) == nil)
    }
}
