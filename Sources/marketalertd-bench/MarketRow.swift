import Foundation
import MarketAlertIO

/// One market's ticker values as decimal text (the wire kits' neutral row), from which every exchange's row
/// shape is rendered.
typealias MarketRow = WireRow

extension WireRow {
    /// From a recorded Binance row (all values as recorded).
    init?(binance row: FlatJSONTemplate) {
        guard let symbol = row.text("symbol"), let split = BinanceBulkList.split(symbol),
              let last = row.text("lastPrice"), let bid = row.text("bidPrice"), let ask = row.text("askPrice"),
              let open = row.text("openPrice"), let high = row.text("highPrice"), let low = row.text("lowPrice"),
              let volume = row.text("volume"), let quoteVolume = row.text("quoteVolume"),
              let time = row.text("closeTime").flatMap({ Int64($0) }) else { return nil }
        self.init(base: split.base, quote: split.quote, last: last, bid: bid, ask: ask, open: open, high: high, low: low,
                  volume: volume, quoteVolume: quoteVolume, timeMillis: time)
        bidQty = row.text("bidQty") ?? bidQty
        askQty = row.text("askQty") ?? askQty
        lastQty = row.text("lastQty") ?? lastQty
    }

    /// A live market around `price` (bid/ask a hair either side, the day's range ±1%).
    init(base: String, quote: String, price: Double, places: Int, timeMillis: Int64) {
        func text(_ value: Double) -> String { DecimalFormat.fixed(value, places: places) }
        let spread = price * 0.00001
        self.init(base: base, quote: quote, last: text(price), bid: text(price - spread), ask: text(price + spread),
                  open: text(price * 0.995), high: text(price * 1.01), low: text(price * 0.99),
                  volume: "12345.678", quoteVolume: text(price * 12345.678), timeMillis: timeMillis)
    }
}
