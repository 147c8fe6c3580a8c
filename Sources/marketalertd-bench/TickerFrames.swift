import Foundation
import MarketAlertCore
import MarketAlertIO

/// Ticker frames in each exchange's wire shape (its kit's `tickerFrame`), as the streaming benchmark's
/// feeder pushes them and the allocation benchmark decodes them.
enum TickerFrames {
    /// One ticker frame of `symbol` (quoted in `quote`) on `exchange`, its price moving a little around
    /// `usdPrice` with `tick`; nil for an exchange without a stream peer.
    static func frame(_ exchange: ExchangeID, symbol: String, quote: String, usdPrice: Double, tick: Int) -> String? {
        guard let peer = ExchangeRegistry.standard[exchange]?.wire.stream else { return nil }
        let usd = usdPrice * (1 + Double((tick * 13) % 7) * 0.00003)
        let price = quote == "KRW" ? usd * BenchMarkets.usdKRW : usd
        let places = DecimalFormat.places(for: price)
        let p = DecimalFormat.fixed(price, places: places)
        let b = DecimalFormat.fixed(price * 0.99999, places: places)
        let a = DecimalFormat.fixed(price * 1.00001, places: places)
        let millis = Int64(Date().timeIntervalSince1970 * 1000)
        let row = WireRow(base: "", quote: quote, last: p, bid: b, ask: a, open: p, high: a, low: b, volume: "10.5", quoteVolume: "1000.5", timeMillis: millis)
        return peer.tickerFrame(row, symbol, tick, millis)
    }
}
