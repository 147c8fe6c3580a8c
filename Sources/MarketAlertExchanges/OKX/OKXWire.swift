import Foundation
import MarketAlertCore

/// OKX as a peer: `/api/v5/market/tickers?instType=SPOT` (always the whole spot list), `tickers` frames,
/// one `subscribe` event per instrument, and text `ping` → `pong`.
package enum OKXWire {
    package static let kit = ExchangeWireKit(
        homeQuote: "USDT", recordedQuote: "USDT",
        rest: RESTPeer(
            paths: [path, instrumentsPath],
            shapes: [
                RecordedShape(fixture: "okx/market-tickers-SPOT-ccxtsrc.json", text: envelope.recorded),
                RecordedShape(fixture: "okx/public-instruments-SPOT-ccxtsrc.json", text: instruments.recorded),
            ],
            body: { rows, _ in envelope.body(rows: rows.map(row)) },
            answer: { request, book in
                let rows = { book.live().map(\.row) + book.others }
                switch request.path {
                case path: return .json(envelope.body(rows: rows().map(row)))
                case instrumentsPath: return .json(instruments.body(rows: rows().map(instrument)))
                default: return nil
                }
            },
            startsPoll: { request, _ in request.path == path ? true : request.path == instrumentsPath ? false : nil }),
        stream: StreamPeer(path: "/ws/v5/public", tickerFrame: frame, persona: persona),
        fixtures: WireFixtures(rest: "okx", stream: "streams/okx"))

    static let path = "/api/v5/market/tickers"

    /// `okx/market-tickers-SPOT-ccxtsrc.json`.
    static let envelope = ListEnvelope(
        constant: #"{"code":"0","msg":"","data":[{"instType":"SPOT","instId":"BCD-BTC","last":"0.0000769","lastSz":"5.4788","askPx":"0.0000777","askSz":"3.2197","bidPx":"0.0000757","bidSz":"4.7509","open24h":"0.0000885","high24h":"0.0000917","low24h":"0.0000596","volCcy24h":"9.2877","vol24h":"124824.1985","ts":"1621441741434","sodUtc0":"0.0000905","sodUtc8":"0.0000729"}]}"#,
        listKey: "data")

    /// The market list (`OKXMarketList`): every listed market as a live spot instrument.
    static let instrumentsPath = "/api/v5/public/instruments"

    /// `okx/public-instruments-SPOT-ccxtsrc.json`.
    static let instruments = ListEnvelope(
        constant: #"{"code":"0","data":[{"alias":"","baseCcy":"BTC","category":"1","ctMult":"","ctType":"","ctVal":"","ctValCcy":"","expTime":"","instId":"BTC-USDT","instType":"SPOT","lever":"10","listTime":"1548133413000","lotSz":"0.00000001","minSz":"0.00001","optType":"","quoteCcy":"USDT","settleCcy":"","state":"live","stk":"","tickSz":"0.1","uly":""}],"msg":""}"#,
        listKey: "data")

    static func instrument(_ m: WireRow) -> String {
        instruments.row.render(["instId": "\(m.base)-\(m.quote)".quoted, "baseCcy": m.base.quoted, "quoteCcy": m.quote.quoted])
    }

    static func row(_ m: WireRow) -> String {
        let t = DecimalFormat.trimmed
        return envelope.row.render([
            "instId": "\(m.base)-\(m.quote)".quoted, "last": t(m.last).quoted, "lastSz": t(m.lastQty).quoted,
            "askPx": t(m.ask).quoted, "askSz": t(m.askQty).quoted, "bidPx": t(m.bid).quoted, "bidSz": t(m.bidQty).quoted,
            "open24h": t(m.open).quoted, "high24h": t(m.high).quoted, "low24h": t(m.low).quoted,
            "volCcy24h": t(m.quoteVolume).quoted, "vol24h": t(m.volume).quoted, "ts": String(m.timeMillis).quoted,
            "sodUtc0": t(m.open).quoted, "sodUtc8": t(m.open).quoted,
        ])
    }

    static func frame(_ row: WireRow, _ symbol: String, _ sequence: Int, _ millis: Int64) -> String {
        #"{"arg":{"channel":"tickers","instId":"\#(symbol)"},"data":[{"instType":"SPOT","instId":"\#(symbol)","last":"\#(row.last)","lastSz":"0.1","askPx":"\#(row.ask)","askSz":"1.5","bidPx":"\#(row.bid)","bidSz":"0.2","ts":"\#(millis)"}]}"#
    }

    /// `{"op":"subscribe","args":[{"channel":"tickers","instId":"BTC-USDT"},…]}` → one
    /// `{"event":"subscribe","arg":{…},"connId":…}` per instrument; text `ping` → `pong`.
    static func persona(_ text: String, _ knobs: PersonaKnobs) -> [WireReply] {
        if text == "ping" { return knobs.answerPings ? [.text("pong")] : [] }
        let invalid = WireReply.text(#"{"event":"error","code":"60012","msg":"Invalid request","connId":"a4d3ae55"}"#)
        guard let request = WireJSON.object(text), let op = request["op"] as? String, op == "subscribe" || op == "unsubscribe",
              let args = request["args"] as? [[String: Any]], !args.isEmpty else { return [invalid] }
        // A book's resync unsubscribes it first: one `unsubscribe` event per arg.
        if op == "unsubscribe" {
            return args.map { arg in
                .text("{\"event\":\"unsubscribe\",\"arg\":{\"channel\":\"\(arg["channel"] as? String ?? "")\",\"instId\":\"\(arg["instId"] as? String ?? "")\"},\"connId\":\"a4d3ae55\"}")
            }
        }
        var replies: [WireReply] = []
        for (position, arg) in args.enumerated() {
            // `books` (v3 depth) is answered like `tickers`: one ack per instrument.
            guard let channel = arg["channel"] as? String, channel == "tickers" || channel == "books", let instrument = arg["instId"] as? String,
                  WireJSON.matches(instrument, #"^[A-Z0-9]+-[A-Z0-9]+$"#)
            else { return [invalid] }
            let refusal = "{\"event\":\"error\",\"code\":\"60018\",\"msg\":\"Wrong URL or channel:\(channel),instId:\(instrument) doesn't exist\",\"connId\":\"a4d3ae55\"}"
            if knobs.refused.contains(instrument) {
                replies.append(.text(refusal))
                continue
            }
            let ack = "{\"event\":\"subscribe\",\"arg\":{\"channel\":\"\(channel)\",\"instId\":\"\(instrument)\"},\"connId\":\"a4d3ae55\"}"
            switch knobs.mode {
            case .ack: replies.append(.text(ack))
            case .partial where position == 0: replies.append(.text(ack))
            case .reject: return [.text(refusal)]
            case .partial, .silent: break
            }
        }
        return replies
    }
}
