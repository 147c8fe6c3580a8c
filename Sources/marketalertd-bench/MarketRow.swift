import Foundation

/// One market's ticker values as decimal text, from which every exchange's row shape is rendered.
struct MarketRow: Sendable {
    var base: String
    var quote: String
    var last: String
    var bid: String
    var ask: String
    var open: String
    var high: String
    var low: String
    var volume: String
    var quoteVolume: String
    var bidQty = "1.5"
    var askQty = "2.25"
    var lastQty = "0.01"
    var timeMillis: Int64

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

    init(base: String, quote: String, last: String, bid: String, ask: String, open: String, high: String, low: String,
         volume: String, quoteVolume: String, timeMillis: Int64) {
        self.base = base
        self.quote = quote
        self.last = last
        self.bid = bid
        self.ask = ask
        self.open = open
        self.high = high
        self.low = low
        self.volume = volume
        self.quoteVolume = quoteVolume
        self.timeMillis = timeMillis
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

enum DecimalFormat {
    /// `67123.45000000` (Binance, Upbit).
    static func fixed(_ value: Double, places: Int) -> String { String(format: "%.\(places)f", value) }

    /// Decimal places that give `price` eight significant digits (at least two, at most twelve), so that a
    /// cheap coin's price keeps its precision (`0.00012345`) and a dear one stays readable (`67123.456`).
    static func places(for price: Double) -> Int {
        guard price > 0, price.isFinite else { return 2 }
        return min(12, max(2, 7 - Int(log10(price).rounded(.down))))
    }

    /// `0.05691000` → `0.05691`, `28.00000000` → `28` (Bybit, OKX, Bitget send no trailing zeros).
    static func trimmed(_ text: String) -> String {
        guard text.contains(".") else { return text }
        var result = Substring(text)
        while result.hasSuffix("0") { result = result.dropLast() }
        if result.hasSuffix(".") { result = result.dropLast() }
        return String(result)
    }
}
