import Foundation
import MarketAlertCore

/// Bybit as a peer: `/v5/market/tickers?category=spot` (always the whole spot list), `tickers.<SYMBOL>`
/// frames, and its `subscribe`/`ping` answers.
package enum BybitWire {
    package static let kit = ExchangeWireKit(
        homeQuote: "USDT", recordedQuote: "USDT",
        rest: RESTPeer(
            paths: [path], shapes: [RecordedShape(fixture: "bybit/tickers-spot.json", text: envelope.recorded)],
            body: body,
            answer: { request, book in
                request.path == path ? .json(body(book.live().map(\.row) + book.others, request.nowMillis)) : nil
            }),
        stream: StreamPeer(path: "/v5/public/spot", tickerFrame: frame, persona: persona),
        fixtures: WireFixtures(rest: "bybit", stream: "streams/bybit"))

    static let path = "/v5/market/tickers"

    /// `bybit/tickers-spot.json`.
    static let envelope = ListEnvelope(
        constant: #"{"retCode":0,"retMsg":"OK","result":{"category":"spot","list":[{"symbol":"BTCUSDT","bid1Price":"20517.96","bid1Size":"2","ask1Price":"20527.77","ask1Size":"1.862172","lastPrice":"20533.13","prevPrice24h":"20393.48","price24hPcnt":"0.0068","highPrice24h":"21128.12","lowPrice24h":"20318.89","turnover24h":"243765620.65899866","volume24h":"11801.27771","usdIndexPrice":"20784.12009279"}]},"retExtInfo":{},"time":1673859087947}"#,
        listKey: "list")

    static func body(_ rows: [WireRow], _ millis: Int64) -> String {
        envelope.body(rows: rows.map(row), numbers: ["time": millis])
    }

    static func row(_ m: WireRow) -> String {
        let t = DecimalFormat.trimmed
        return envelope.row.render([
            "symbol": (m.base + m.quote).quoted, "bid1Price": t(m.bid).quoted, "bid1Size": t(m.bidQty).quoted,
            "ask1Price": t(m.ask).quoted, "ask1Size": t(m.askQty).quoted, "lastPrice": t(m.last).quoted,
            "prevPrice24h": t(m.open).quoted, "highPrice24h": t(m.high).quoted, "lowPrice24h": t(m.low).quoted,
            "turnover24h": t(m.quoteVolume).quoted, "volume24h": t(m.volume).quoted, "usdIndexPrice": t(m.last).quoted,
        ])
    }

    static func frame(_ row: WireRow, _ symbol: String, _ sequence: Int, _ millis: Int64) -> String {
        let (p, b) = (row.last, row.bid)
        return #"{"topic":"tickers.\#(symbol)","ts":\#(millis),"type":"snapshot","cs":\#(sequence),"data":{"symbol":"\#(symbol)","lastPrice":"\#(p)","highPrice24h":"\#(p)","lowPrice24h":"\#(b)","prevPrice24h":"\#(p)","volume24h":"10.5","turnover24h":"1000.5","price24hPcnt":"0.0001"}}"#
    }

    /// `{"req_id":…,"op":"subscribe","args":["orderbook.1.BTCUSDT","tickers.BTCUSDT",…]}` (at most 10 args) →
    /// `{"success":true,"ret_msg":"subscribe",…}`; `{"op":"ping"}` → `{"success":true,"ret_msg":"pong",…}`.
    static func persona(_ text: String, _ knobs: PersonaKnobs) -> [WireReply] {
        guard let request = WireJSON.object(text), let op = request["op"] as? String else {
            return [.text(#"{"success":false,"ret_msg":"error:request not json","conn_id":"cl9hh1rfv5v9","op":""}"#)]
        }
        let requestID = request["req_id"] as? String ?? ""
        if op == "ping" {
            return knobs.answerPings ? [.text(#"{"success":true,"ret_msg":"pong","conn_id":"cl9hh1rfv5v9","op":"ping"}"#)] : []
        }
        // v3 books: a resync unsubscribes a book topic before subscribing it again.
        if op == "unsubscribe" {
            return [.text("{\"success\":true,\"ret_msg\":\"\",\"conn_id\":\"cl9hh1rfv5v9\",\"req_id\":\"\(requestID)\",\"op\":\"unsubscribe\"}")]
        }
        guard op == "subscribe", let args = request["args"] as? [String], !args.isEmpty, args.count <= 10,
              args.allSatisfy({ WireJSON.matches($0, #"^(orderbook\.(1|50|200)|tickers)\.[A-Z0-9]+$"#) })
        else {
            return [.text("{\"success\":false,\"ret_msg\":\"error:args invalid or more than 10\",\"conn_id\":\"cl9hh1rfv5v9\",\"req_id\":\"\(requestID)\",\"op\":\"subscribe\"}")]
        }
        if let refused = args.first(where: { knobs.refused.contains(String($0.split(separator: ".").last ?? "")) }) {
            return [.text("{\"success\":false,\"ret_msg\":\"Invalid symbol :[\(refused)]\",\"conn_id\":\"cl9hh1rfv5v9\",\"req_id\":\"\(requestID)\",\"op\":\"subscribe\"}")]
        }
        switch knobs.mode {
        case .ack, .partial:
            return [.text("{\"success\":true,\"ret_msg\":\"subscribe\",\"conn_id\":\"cl9hh1rfv5v9\",\"req_id\":\"\(requestID)\",\"op\":\"subscribe\"}")]
        case .reject:
            return [.text("{\"success\":false,\"ret_msg\":\"Invalid symbol :[\(args[0])]\",\"conn_id\":\"cl9hh1rfv5v9\",\"req_id\":\"\(requestID)\",\"op\":\"subscribe\"}")]
        case .silent:
            return []
        }
    }
}
