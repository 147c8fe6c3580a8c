import Foundation
import MarketAlertCore

/// Coinone as a peer: `/public/v2/ticker_new/KRW` (every KRW market, best levels included), `TICKER` data
/// frames, and its stream server's answers: `SUBSCRIBED` for each subscription, `PONG` for `PING`, `ERROR`
/// for a request it cannot serve.
package enum CoinoneWire {
    package static let kit = ExchangeWireKit(
        homeQuote: "KRW", recordedQuote: "KRW",
        rest: RESTPeer(
            paths: [CoinoneTickerSource.path], shapes: [RecordedShape(fixture: "coinone/ticker_new-KRW-ccxtsrc.json", text: recorded)],
            body: body,
            answer: { request, book in
                guard request.path == CoinoneTickerSource.path else { return nil }
                return .json(body((book.live().map(\.row) + book.others).filter { $0.quote == "KRW" }, request.nowMillis))
            }),
        stream: StreamPeer(path: "/", tickerFrame: frame, persona: persona),
        fixtures: WireFixtures(rest: "coinone", stream: "streams/coinone"))

    /// `coinone/ticker_new-KRW-ccxtsrc.json`.
    static let recorded = #"{"result":"success","error_code":"0","server_time":1701073358487,"tickers":[{"quote_currency":"krw","target_currency":"btc","timestamp":1701073357818,"high":"50543000.0","low":"49945000.0","first":"50487000.0","last":"50062000.0","quote_volume":"11349804285.3859","target_volume":"226.07268994","best_asks":[{"price":"50081000.0","qty":"0.18471358"}],"best_bids":[{"price":"50062000.0","qty":"0.04213455"}],"id":"1701073357818001"}]}"#

    static func body(_ rows: [WireRow], _ millis: Int64) -> String {
        #"{"result":"success","error_code":"0","server_time":\#(millis),"tickers":["# + rows.map(row).joined(separator: ",") + "]}"
    }

    /// The recorded row's shape: lower-case currencies, decimal strings, one best level per side.
    static func row(_ m: WireRow) -> String {
        let (base, quote) = (m.base.lowercased(), m.quote.lowercased())
        return #"{"quote_currency":"\#(quote)","target_currency":"\#(base)","timestamp":\#(m.timeMillis),"high":"\#(m.high)","low":"\#(m.low)","first":"\#(m.open)","last":"\#(m.last)","quote_volume":"\#(m.quoteVolume)","target_volume":"\#(m.volume)","best_asks":[{"price":"\#(m.ask)","qty":"\#(m.askQty)"}],"best_bids":[{"price":"\#(m.bid)","qty":"\#(m.bidQty)"}],"id":"\#(m.timeMillis)001"}"#
    }

    /// A `TICKER` push in the shape of `streams/coinone/ticker-KRW-BTC-ccxtsrc.jsonl`; its `id` (which orders a
    /// market's tickers) grows with `sequence` and the time, as Coinone's do.
    static func frame(_ row: WireRow, _ target: String, _ sequence: Int, _ millis: Int64) -> String {
        #"{"response_type":"DATA","channel":"TICKER","data":{"quote_currency":"KRW","target_currency":"\#(target)","timestamp":\#(millis),"quote_volume":"19521465345.504","target_volume":"334.81445168","high":"\#(row.high)","low":"\#(row.low)","first":"\#(row.open)","last":"\#(row.last)","volume_power":"100","ask_best_price":"\#(row.ask)","ask_best_qty":"0.1961","bid_best_price":"\#(row.bid)","bid_best_qty":"0.00009258","id":"\#(millis * 1000 + Int64(sequence))","yesterday_high":"\#(row.high)","yesterday_low":"\#(row.low)","yesterday_first":"\#(row.open)","yesterday_last":"\#(row.open)","yesterday_quote_volume":"12967227517.4262","yesterday_target_volume":"220.09232233"}}"#
    }

    static let invalidTopic = #"{"response_type":"ERROR","error_code":160012,"message":"Invalid Topic"}"#

    /// `{"request_type":"SUBSCRIBE","channel":"TICKER"|"ORDERBOOK","topic":{…}}` → `SUBSCRIBED` echoing the topic (the
    /// shape of Coinone's docs); `{"request_type":"PING"}` → `{"response_type":"PONG"}`; anything else, or a
    /// market it is told to refuse, → `ERROR` (Coinone's errors name no market).
    static func persona(_ text: String, _ knobs: PersonaKnobs) -> [WireReply] {
        guard let request = WireJSON.object(text), let type = request["request_type"] as? String else { return [.text(invalidTopic)] }
        if type == "PING" { return knobs.answerPings ? [.text(#"{"response_type":"PONG"}"#)] : [] }
        guard type == "SUBSCRIBE", let channel = request["channel"] as? String, ["TICKER", "ORDERBOOK"].contains(channel),
              let topic = request["topic"] as? [String: Any],
              let quote = topic["quote_currency"] as? String, let target = topic["target_currency"] as? String,
              quote == "KRW", WireJSON.matches(target, #"^[A-Z0-9]+$"#), !knobs.refused.contains(target)
        else { return [.text(invalidTopic)] }
        switch knobs.mode {
        case .ack, .partial:
            return [.text(#"{"response_type":"SUBSCRIBED","channel":"\#(channel)","data":{"quote_currency":"KRW","target_currency":"\#(target)"}}"#)]
        case .reject:
            return [.text(invalidTopic)]
        case .silent:
            return []
        }
    }
}
