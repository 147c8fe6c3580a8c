import Foundation
import MarketAlertCore

/// Bitget v2 public WebSocket (`wss://ws.bitget.com/v2/ws/public`), channel `ticker` (instType `SPOT`:
/// last, best bid and ask) for every watched symbol:
/// `{"op":"subscribe","args":[{"instType":"SPOT","channel":"ticker","instId":"BTCUSDT"},…]}`, at most 50
/// args per request. Each arg is acknowledged on its own (`{"event":"subscribe","arg":{…}}`); errors arrive
/// as `{"event":"error","code":…,"msg":…}`. Bitget closes a connection that has not sent the text `ping`
/// for 2 minutes: the client pings every 30 s and expects `pong`. At most 10 client messages per second.
package struct BitgetStream: ExchangeStreamProtocol {
    package init() {}

    package var exchange: ExchangeID { .bitget }
    package var keepalive: StreamKeepalive { .clientPings(.message, every: .seconds(30), window: .seconds(45)) }
    package var pingMessage: String { "ping" }
    package var outboundLimit: OutboundPacer? { OutboundPacer(limit: 10, per: .seconds(1)) }

    static let argsPerRequest = 50

    package func marketID(_ pair: MarketPair) -> String { BitgetTickerSource.symbol(pair) }

    package func subscription(for markets: [String]) -> StreamSubscription {
        var messages: [String] = []
        for start in stride(from: 0, to: markets.count, by: Self.argsPerRequest) {
            let args = markets[start..<min(start + Self.argsPerRequest, markets.count)]
                .map { "{\"instType\":\"SPOT\",\"channel\":\"ticker\",\"instId\":\"\($0)\"}" }
            messages.append("{\"op\":\"subscribe\",\"args\":[\(args.joined(separator: ","))]}")
        }
        return StreamSubscription(messages: messages, acks: Set(markets.map { "ticker:\($0)" }))
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
                // 30001: "instType:SPOT,channel:ticker,instId:XYZUSDT doesn't exist".
                var missing: [String] = []
                if code.map(json.string) == "30001" {
                    missing = StreamRefusal.candidates(in: text)
                    if let arg, arg.kind == .object, let instrument = json.member("instId", ofObjectAt: arg.start) {
                        missing.append(json.string(instrument))
                    }
                }
                return .rejected(reason: "\(code.map(json.string) ?? "?") \(text)", markets: missing)
            }
            return .ignored
        }
        guard let data, data.kind == .array else { return .dropped(.unknownMessage) }
        if let arg, arg.kind == .object, let channel = json.member("channel", ofObjectAt: arg.start), !json.isString(channel, "ticker") {
            return .ignored
        }
        var outcome = StreamFrame.dropped(.malformed)
        var applied = false
        json.elements(ofArrayAt: data.start) { row in
            guard row.kind == .object else { return false }
            var fields = StreamQuoteFields()
            var instrument: JSONBytes.Value?
            json.members(ofObjectAt: row.start) { start, end, value in
                if json.matches(start, end, "instId") { instrument = value }
                else if json.matches(start, end, "lastPr") { fields.last = StreamQuoteFields.field(json, value) }
                else if json.matches(start, end, "bidPr") { fields.bid = StreamQuoteFields.field(json, value) }
                else if json.matches(start, end, "askPr") { fields.ask = StreamQuoteFields.field(json, value) }
                else if json.matches(start, end, "ts") { fields.exchangeTime = json.millis(value) }
                return true
            }
            guard let instrument, instrument.kind == .string else { return false }
            let applying = table.apply(fields, market: json.slice(instrument))
            if applying == .data { applied = true } else if !applied { outcome = applying }
            return true
        }
        return applied ? .data : outcome
    }
}
