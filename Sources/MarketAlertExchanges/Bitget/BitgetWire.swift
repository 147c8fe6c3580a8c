import Foundation
import MarketAlertCore

/// Bitget as a peer: `/api/v2/spot/market/tickers` (always the whole spot list), v2 `ticker` snapshots,
/// one `subscribe` event per arg, and text `ping` → `pong`.
package enum BitgetWire {
    package static let kit = ExchangeWireKit(
        homeQuote: "USDT", recordedQuote: "USDT",
        rest: RESTPeer(
            paths: [path],
            shapes: [RecordedShape(fixture: "bitget/spot-market-tickers-BTCUSDT-ccxtsrc.json", text: envelope.recorded)],
            body: body,
            answer: { request, book in
                request.path == path ? .json(body(book.live().map(\.row) + book.others, request.nowMillis)) : nil
            }),
        stream: StreamPeer(path: "/v2/ws/public", tickerFrame: frame, persona: persona),
        fixtures: WireFixtures(rest: "bitget", stream: "streams/bitget"))

    static let path = "/api/v2/spot/market/tickers"

    /// `bitget/spot-market-tickers-BTCUSDT-ccxtsrc.json`.
    static let envelope = ListEnvelope(
        constant: #"{"code":"00000","msg":"success","requestTime":1700532903782,"data":[{"open":"37202.46","symbol":"BTCUSDT","high24h":"37744.75","low24h":"36666","lastPr":"37583.69","quoteVolume":"519127705.303","baseVolume":"13907.0386","usdtVolume":"519127705.302908","ts":"1700532903261","bidPr":"37583.68","askPr":"37583.69","bidSz":"0.0007","askSz":"0.0829","openUtc":"37449.4","changeUtc24h":"0.00359","change24h":"0.00321"}]}"#,
        listKey: "data")

    static func body(_ rows: [WireRow], _ millis: Int64) -> String {
        envelope.body(rows: rows.map(row), numbers: ["requestTime": millis])
    }

    static func row(_ m: WireRow) -> String {
        let t = DecimalFormat.trimmed
        return envelope.row.render([
            "open": t(m.open).quoted, "symbol": (m.base + m.quote).quoted, "high24h": t(m.high).quoted, "low24h": t(m.low).quoted,
            "lastPr": t(m.last).quoted, "quoteVolume": t(m.quoteVolume).quoted, "baseVolume": t(m.volume).quoted,
            "usdtVolume": t(m.quoteVolume).quoted, "ts": String(m.timeMillis).quoted, "bidPr": t(m.bid).quoted,
            "askPr": t(m.ask).quoted, "bidSz": t(m.bidQty).quoted, "askSz": t(m.askQty).quoted, "openUtc": t(m.open).quoted,
        ])
    }

    static func frame(_ row: WireRow, _ symbol: String, _ sequence: Int, _ millis: Int64) -> String {
        #"{"action":"snapshot","arg":{"instType":"SPOT","channel":"ticker","instId":"\#(symbol)"},"data":[{"instId":"\#(symbol)","lastPr":"\#(row.last)","bidPr":"\#(row.bid)","askPr":"\#(row.ask)","bidSz":"0.5","askSz":"0.5","ts":"\#(millis)"}],"ts":\#(millis)}"#
    }

    /// `{"op":"subscribe","args":[{"instType":"SPOT","channel":"ticker","instId":"BTCUSDT"},…]}` →
    /// `{"event":"subscribe","arg":{…}}` per arg; text `ping` → `pong`.
    static func persona(_ text: String, _ knobs: PersonaKnobs) -> [WireReply] {
        if text == "ping" { return knobs.answerPings ? [.text("pong")] : [] }
        let invalid = WireReply.text(#"{"event":"error","code":30016,"msg":"param error","op":"subscribe"}"#)
        guard let request = WireJSON.object(text), let op = request["op"] as? String, op == "subscribe" || op == "unsubscribe",
              let args = request["args"] as? [[String: Any]], !args.isEmpty, args.count <= 50 else { return [invalid] }
        // A book's resync unsubscribes it first: one `unsubscribe` event per arg.
        if op == "unsubscribe" {
            return args.map { arg in
                .text("{\"event\":\"unsubscribe\",\"arg\":{\"instType\":\"SPOT\",\"channel\":\"\(arg["channel"] as? String ?? "")\",\"instId\":\"\(arg["instId"] as? String ?? "")\"}}")
            }
        }
        var replies: [WireReply] = []
        for (position, arg) in args.enumerated() {
            // `books` (v3 depth) is answered like `ticker`: one ack per arg.
            guard arg["instType"] as? String == "SPOT", let channel = arg["channel"] as? String, channel == "ticker" || channel == "books",
                  let instrument = arg["instId"] as? String, WireJSON.matches(instrument, #"^[A-Z0-9]+$"#)
            else { return [invalid] }
            let echo = "{\"instType\":\"SPOT\",\"channel\":\"\(channel)\",\"instId\":\"\(instrument)\"}"
            let refusal = "{\"event\":\"error\",\"arg\":\(echo),\"code\":30001,\"msg\":\"instType:SPOT,channel:\(channel),instId:\(instrument) doesn't exist\",\"op\":\"subscribe\"}"
            if knobs.refused.contains(instrument) {
                replies.append(.text(refusal))
                continue
            }
            switch knobs.mode {
            case .ack: replies.append(.text("{\"event\":\"subscribe\",\"arg\":\(echo)}"))
            case .partial where position == 0: replies.append(.text("{\"event\":\"subscribe\",\"arg\":\(echo)}"))
            case .reject: return [.text(refusal)]
            case .partial, .silent: break
            }
        }
        return replies
    }
}
