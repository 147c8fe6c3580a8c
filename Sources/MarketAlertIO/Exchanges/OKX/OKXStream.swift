import Foundation
import MarketAlertCore

/// OKX v5 public WebSocket (`wss://ws.okx.com:8443/ws/v5/public`), channel `tickers` (last, best bid and
/// ask) for every watched instrument in one `{"op":"subscribe","args":[{"channel":"tickers","instId":…},…]}`.
/// Each instrument is acknowledged on its own (`{"event":"subscribe","arg":{…}}`), errors arrive as
/// `{"event":"error","code":…,"msg":…}`. OKX drops a connection with no traffic for 30 s: the client sends
/// the text `ping` every 20 s and the server answers `pong`. A `notice` event (code 64008) announces a
/// service-upgrade disconnection: a replacement connection is opened before it.
package struct OKXStream: ExchangeStreamProtocol {
    package init() {}

    package var exchange: ExchangeID { .okx }
    package var keepalive: StreamKeepalive { .clientPings(.message, every: .seconds(20), window: .seconds(30)) }
    package var pingMessage: String { "ping" }

    package func marketID(_ pair: MarketPair) -> String { OKXTickerSource.instrumentID(pair) }

    package func subscription(for markets: [String]) -> StreamSubscription {
        let args = markets.map { "{\"channel\":\"tickers\",\"instId\":\"\($0)\"}" }.joined(separator: ",")
        return StreamSubscription(
            messages: ["{\"op\":\"subscribe\",\"args\":[\(args)]}"], acks: Set(markets.map { "tickers:\($0)" }))
    }

    package func decode(_ frame: UnsafeRawBufferPointer, into table: inout StreamMarketTable, receivedAt: Date) -> StreamFrame {
        let json = JSONBytes(frame)
        if json.matches(0, frame.count, "pong") { return .heartbeat }
        guard let root = json.rootObject() else { return .dropped(.malformed) }
        var event: JSONBytes.Value?
        var arg: JSONBytes.Value?
        var data: JSONBytes.Value?
        var code: JSONBytes.Value?
        var msg: JSONBytes.Value?
        json.members(ofObjectAt: root) { start, end, value in
            if json.matches(start, end, "data") { data = value }
            else if json.matches(start, end, "arg") { arg = value }
            else if json.matches(start, end, "event") { event = value }
            else if json.matches(start, end, "code") { code = value }
            else if json.matches(start, end, "msg") { msg = value }
            return true
        }
        if let event {
            if json.isString(event, "subscribe") {
                guard let arg, arg.kind == .object, let channel = json.member("channel", ofObjectAt: arg.start),
                      let instrument = json.member("instId", ofObjectAt: arg.start)
                else { return .dropped(.malformed) }
                return .acked(keys: ["\(json.string(channel)):\(json.string(instrument))"], complete: false)
            }
            if json.isString(event, "error") {
                let text = msg.map(json.string) ?? ""
                // 60018: "Wrong URL or channel:tickers,instId:XYZ-USDT doesn't exist".
                let missing = code.map { json.isString($0, "60018") } == true ? StreamRefusal.candidates(in: text) : []
                return .rejected(reason: "\(code.map(json.string) ?? "?") \(text)", markets: missing)
            }
            if json.isString(event, "notice") { return code.map { json.isString($0, "64008") } == true ? .shutdownNotice : .ignored }
            return .ignored
        }
        guard let data, data.kind == .array else { return .dropped(.unknownMessage) }
        if let arg, arg.kind == .object, let channel = json.member("channel", ofObjectAt: arg.start), !json.isString(channel, "tickers") {
            return .ignored
        }
        var result = StreamFrame.dropped(.malformed)
        var applied = false
        json.elements(ofArrayAt: data.start) { row in
            guard row.kind == .object else { return false }
            var fields = StreamQuoteFields()
            var instrument: JSONBytes.Value?
            json.members(ofObjectAt: row.start) { start, end, value in
                if json.matches(start, end, "instId") { instrument = value }
                else if json.matches(start, end, "last") { fields.last = StreamQuoteFields.field(json, value) }
                else if json.matches(start, end, "bidPx") { fields.bid = StreamQuoteFields.field(json, value) }
                else if json.matches(start, end, "askPx") { fields.ask = StreamQuoteFields.field(json, value) }
                else if json.matches(start, end, "ts") { fields.exchangeTime = json.millis(value) }
                return true
            }
            guard let instrument, instrument.kind == .string else { return false }
            let outcome = table.apply(fields, market: json.slice(instrument))
            if outcome == .data { applied = true } else if !applied { result = outcome }
            return true
        }
        return applied ? .data : result
    }
}
