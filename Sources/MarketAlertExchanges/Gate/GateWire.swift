import Foundation
import MarketAlertCore

/// Gate as a peer: `/api/v4/spot/tickers` (always every pair), `spot.tickers` and `spot.book_ticker`
/// updates, and its stream server's answers to `subscribe` (per request, refusing the whole request for an
/// unknown pair) and `spot.ping`. The server checks each request's `time` against its clock, as Gate does.
package enum GateWire {
    package static let kit = ExchangeWireKit(
        homeQuote: "USDT", recordedQuote: "USDT",
        rest: RESTPeer(
            paths: [GateTickerSource.path, GateMarketList.path],
            shapes: [
                RecordedShape(fixture: "gate/spot-tickers-KFC_USDT-ccxtsrc.json", text: "[" + recordedRow + "]"),
                RecordedShape(fixture: "gate/spot-currency_pairs-ccxtsrc.json", text: "[" + recordedPair + "]"),
            ],
            body: { rows, _ in body(rows) },
            answer: { request, book in
                let rows = { book.live().map(\.row) + book.others }
                switch request.path {
                case GateTickerSource.path: return .json(body(rows()))
                case GateMarketList.path: return .json("[" + rows().map(pair).joined(separator: ",") + "]")
                default: return nil
                }
            },
            startsPoll: { request, _ in
                request.path == GateTickerSource.path ? true : request.path == GateMarketList.path ? false : nil
            }),
        stream: StreamPeer(path: "/ws/v4/", tickerFrame: frame, persona: persona),
        fixtures: WireFixtures(rest: "gate", stream: "streams/gate"))

    /// The row of `gate/spot-tickers-KFC_USDT-ccxtsrc.json`.
    static let recordedRow = #"{"currency_pair":"KFC_USDT","last":"7.255","lowest_ask":"7.298","highest_bid":"7.218","change_percentage":"-1.18","base_volume":"1219.053687865","quote_volume":"8807.40299875455","high_24h":"7.262","low_24h":"7.095"}"#
    static let template = FlatJSONTemplate(constant: recordedRow)

    /// The row of `gate/spot-currency_pairs-ccxtsrc.json`: the market list (`GateMarketList`) lists every
    /// market of the book as a tradable pair.
    static let recordedPair = #"{"id":"QTUM_ETH","base":"QTUM","base_name":"Quantum","quote":"ETH","quote_name":"Ethereum","fee":"0.2","min_base_amount":"0.01","min_quote_amount":"0.001","max_quote_amount":"50000","amount_precision":3,"precision":6,"trade_status":"tradable","sell_start":1607313600,"buy_start":1700492400,"type":"normal","trade_url":"https://www.gate.com/trade/QTUM_ETH"}"#
    static let pairTemplate = FlatJSONTemplate(constant: recordedPair)

    static func pair(_ m: WireRow) -> String {
        let id = "\(m.base)_\(m.quote)"
        return pairTemplate.render([
            "id": id.quoted, "base": m.base.quoted, "base_name": m.base.quoted, "quote": m.quote.quoted, "quote_name": m.quote.quoted,
            "trade_url": "https://www.gate.com/trade/\(id)".quoted,
        ])
    }

    static func body(_ rows: [WireRow]) -> String { "[" + rows.map(row).joined(separator: ",") + "]" }

    static func row(_ m: WireRow) -> String {
        let t = DecimalFormat.trimmed
        return template.render([
            "currency_pair": "\(m.base)_\(m.quote)".quoted, "last": t(m.last).quoted, "lowest_ask": t(m.ask).quoted,
            "highest_bid": t(m.bid).quoted, "base_volume": t(m.volume).quoted, "quote_volume": t(m.quoteVolume).quoted,
            "high_24h": t(m.high).quoted, "low_24h": t(m.low).quoted,
        ])
    }

    /// A `spot.tickers` update in the recorded shape (`streams/gate/tickers-…-cryptofeed.jsonl`), with `time_ms`.
    static func frame(_ row: WireRow, _ pair: String, _ sequence: Int, _ millis: Int64) -> String {
        let t = DecimalFormat.trimmed
        return #"{"time":\#(millis / 1000),"time_ms":\#(millis),"channel":"spot.tickers","event":"update","result":{"currency_pair":"\#(pair)","last":"\#(t(row.last))","lowest_ask":"\#(t(row.ask))","highest_bid":"\#(t(row.bid))","change_percentage":"0.5","base_volume":"1219.05","quote_volume":"8807.4","high_24h":"\#(t(row.high))","low_24h":"\#(t(row.low))"}}"#
    }

    /// `{"time","id","channel":"spot.tickers"|"spot.book_ticker","event":"subscribe","payload":[pairs]}` (or
    /// `spot.order_book_update` with `[pair, interval]`) →
    /// one answer per request echoing its `id`; `{"time","channel":"spot.ping"}` → `spot.pong`. A `time` more
    /// than 60 s from the server's clock, or a malformed request, gets Gate's code 1 or 2 error.
    static func persona(_ text: String, _ knobs: PersonaKnobs) -> [WireReply] {
        let now = Date()
        let seconds = Int64(now.timeIntervalSince1970)
        let millis = Int64(now.timeIntervalSince1970 * 1000)
        func error(_ channel: String, _ id: Int64?, _ payload: [String], _ code: Int, _ message: String) -> WireReply {
            let idText = id.map { ",\"id\":\($0)" } ?? ""
            let list = payload.map { "\"\($0)\"" }.joined(separator: ",")
            return .text("{\"time\":\(seconds),\"time_ms\":\(millis)\(idText),\"conn_id\":\"62f2c1dabbe186d7\",\"channel\":\"\(channel)\",\"event\":\"subscribe\",\"payload\":[\(list)],\"error\":{\"code\":\(code),\"message\":\"\(message)\"},\"result\":{\"status\":\"fail\"}}")
        }
        guard let request = WireJSON.object(text), let channel = request["channel"] as? String else {
            return [error("", nil, [], 1, "invalid request body format")]
        }
        let time = (request["time"] as? NSNumber)?.int64Value
        guard let time, abs(time - seconds) <= 60 else { return [error(channel, nil, [], 2, "invalid argument: time")] }
        if channel == "spot.ping" {
            return knobs.answerPings ? [.text("{\"time\":\(seconds),\"time_ms\":\(millis),\"conn_id\":\"62f2c1dabbe186d7\",\"channel\":\"spot.pong\",\"event\":\"\",\"result\":null}")] : []
        }
        let id = (request["id"] as? NSNumber)?.int64Value
        var payload = request["payload"] as? [String] ?? []
        // `spot.order_book_update` takes one pair and an update interval (`["BTC_USDT","100ms"]`).
        if channel == "spot.order_book_update" {
            guard payload.count == 2, ["20ms", "100ms"].contains(payload[1]) else { return [error(channel, id, payload, 2, "invalid argument")] }
            payload.removeLast()
        }
        guard ["spot.tickers", "spot.book_ticker", "spot.order_book_update"].contains(channel), request["event"] as? String == "subscribe",
              !payload.isEmpty, payload.allSatisfy({ WireJSON.matches($0, #"^[A-Z0-9]+_[A-Z0-9]+$"#) })
        else { return [error(channel, id, payload, 2, "invalid argument")] }
        if let unknown = payload.first(where: knobs.refused.contains) {
            return [error(channel, id, payload, 2, "unknown currency pair: \(unknown)")]
        }
        switch knobs.mode {
        case .ack, .partial:
            let list = payload.map { "\"\($0)\"" }.joined(separator: ",")
            let idText = id.map { ",\"id\":\($0)" } ?? ""
            return [.text("{\"time\":\(seconds),\"time_ms\":\(millis)\(idText),\"conn_id\":\"62f2c1dabbe186d7\",\"channel\":\"\(channel)\",\"event\":\"subscribe\",\"payload\":[\(list)],\"result\":{\"status\":\"success\"}}")]
        case .reject:
            return [error(channel, id, payload, 3, "server side error")]
        case .silent:
            return []
        }
    }
}
