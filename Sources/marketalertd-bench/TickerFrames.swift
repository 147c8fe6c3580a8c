import Foundation
import MarketAlertCore

/// Ticker frames in each exchange's wire shape, as the streaming benchmark's feeder pushes them and the
/// allocation benchmark decodes them.
enum TickerFrames {
    /// One ticker frame of `symbol` (quoted in `quote`) on `exchange`, in its wire shape (see
    /// Tests/Fixtures/streams), its price moving a little around `usdPrice` with `tick`.
    static func frame(_ exchange: ExchangeID, symbol: String, quote: String, usdPrice: Double, tick: Int) -> String? {
        let usd = usdPrice * (1 + Double((tick * 13) % 7) * 0.00003)
        let price = quote == "KRW" ? usd * BenchMarkets.usdKRW : usd
        let places = DecimalFormat.places(for: price)
        let p = DecimalFormat.fixed(price, places: places)
        let b = DecimalFormat.fixed(price * 0.99999, places: places)
        let a = DecimalFormat.fixed(price * 1.00001, places: places)
        let millis = Int64(Date().timeIntervalSince1970 * 1000)
        switch exchange {
        case .binance:
            return #"{"e":"24hrTicker","E":\#(millis),"s":"\#(symbol)","c":"\#(p)","b":"\#(b)","B":"1.5","a":"\#(a)","A":"2.5"}"#
        case .bybit:
            return #"{"topic":"tickers.\#(symbol)","ts":\#(millis),"type":"snapshot","cs":\#(tick),"data":{"symbol":"\#(symbol)","lastPrice":"\#(p)","highPrice24h":"\#(p)","lowPrice24h":"\#(b)","prevPrice24h":"\#(p)","volume24h":"10.5","turnover24h":"1000.5","price24hPcnt":"0.0001"}}"#
        case .bitget:
            return #"{"action":"snapshot","arg":{"instType":"SPOT","channel":"ticker","instId":"\#(symbol)"},"data":[{"instId":"\#(symbol)","lastPr":"\#(p)","bidPr":"\#(b)","askPr":"\#(a)","bidSz":"0.5","askSz":"0.5","ts":"\#(millis)"}],"ts":\#(millis)}"#
        case .okx:
            return #"{"arg":{"channel":"tickers","instId":"\#(symbol)"},"data":[{"instType":"SPOT","instId":"\#(symbol)","last":"\#(p)","lastSz":"0.1","askPx":"\#(a)","askSz":"1.5","bidPx":"\#(b)","bidSz":"0.2","ts":"\#(millis)"}]}"#
        case .upbit:
            return #"{"ty":"ticker","cd":"\#(symbol)","tp":\#(p),"tms":\#(millis),"st":"REALTIME"}"#
        case .bithumb:
            return #"{"type":"ticker","code":"\#(symbol)","trade_price":\#(p),"timestamp":\#(millis),"stream_type":"REALTIME"}"#
        case .kraken:
            return #"{"channel":"ticker","type":"update","data":[{"symbol":"\#(symbol)","bid":\#(b),"bid_qty":0.5,"ask":\#(a),"ask_qty":0.5,"last":\#(p),"volume":10.5,"vwap":\#(p),"low":\#(b),"high":\#(a),"change":0.1,"change_pct":0.01}]}"#
        case .coinbase:
            let time = Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
            return #"{"type":"ticker","sequence":\#(tick),"product_id":"\#(symbol)","price":"\#(p)","best_bid":"\#(b)","best_ask":"\#(a)","side":"buy","time":"\#(time)","trade_id":\#(tick),"last_size":"0.01"}"#
        default:
            return nil
        }
    }
}
