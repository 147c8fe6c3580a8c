import Foundation
import MarketAlertCore
import MarketAlertKit

/// Bitget v2 public WebSocket (`wss://ws.bitget.com/v2/ws/public`), channel `ticker` (instType `SPOT`:
/// last, best bid and ask) for every watched symbol:
/// `{"op":"subscribe","args":[{"instType":"SPOT","channel":"ticker","instId":"BTCUSDT"},…]}`, at most 50
/// args per request. Each arg is acknowledged on its own (`{"event":"subscribe","arg":{…}}`); errors arrive
/// as `{"event":"error","code":…,"msg":…}`. Bitget closes a connection that has not sent the text `ping`
/// for 2 minutes: the client pings every 30 s and expects `pong`. At most 10 client messages per second.
///
/// v3 books (`keepingBooks`): channel `books` beside `ticker` for every symbol (the whole book on
/// subscribing, then changes, each with the CRC-32 of the top 25 levels; `OKXStyleBooks`).
package struct BitgetStream: ExchangeStreamProtocol {
    /// The levels a depth rule reads, nil: no books.
    package private(set) var bookLevels: Int?

    package init() {}

    package func keepingBooks(levels: Int) -> BitgetStream? {
        var configured = self
        configured.bookLevels = max(1, levels)
        return configured
    }

    /// A book that failed its checksum: unsubscribed and subscribed again on the same connection, and Bitget
    /// answers the subscription with a fresh snapshot.
    package var bookResync: StreamBookResync {
        .resubscribe { market in
            [#"{"op":"unsubscribe","args":[{"instType":"SPOT","channel":"books","instId":"\#(market)"}]}"#,
             #"{"op":"subscribe","args":[{"instType":"SPOT","channel":"books","instId":"\#(market)"}]}"#]
        }
    }

    package var exchange: ExchangeID { .bitget }
    package var keepalive: StreamKeepalive { .clientPings(.message, every: .seconds(30), window: .seconds(45)) }
    package var pingMessage: String { "ping" }
    package var outboundLimit: OutboundPacer? { OutboundPacer(limit: 10, per: .seconds(1)) }

    package static let argsPerRequest = 50

    /// "A single connection can subscribe up to 1000 Streams" / "Max 1000 channel subscription/connection"
    /// (bitget.com/api-doc/common/websocket-intro); a market takes `ticker`, and `books` too when it keeps
    /// a book: kept a little under 1000 and 500. (The Chinese page also advises under 50 channels for
    /// stability: advice, not a limit.)
    package var maxMarketsPerConnection: Int? { bookLevels == nil ? 950 : 475 }

    package func marketID(_ pair: MarketPair) -> String { BitgetTickerSource.symbol(pair) }

    package func subscription(for markets: [String]) -> StreamSubscription {
        let channels = bookLevels == nil ? ["ticker"] : ["ticker", "books"]
        let args = markets.flatMap { market in
            channels.map { "{\"instType\":\"SPOT\",\"channel\":\"\($0)\",\"instId\":\"\(market)\"}" }
        }
        var messages: [String] = []
        for start in stride(from: 0, to: args.count, by: Self.argsPerRequest) {
            messages.append("{\"op\":\"subscribe\",\"args\":[\(args[start..<min(start + Self.argsPerRequest, args.count)].joined(separator: ","))]}")
        }
        return StreamSubscription(messages: messages, acks: Set(markets.flatMap { market in channels.map { "\($0):\(market)" } }))
    }

    package static let frames = OKXStyleFrames(channel: "ticker", lastField: "lastPr", bidField: "bidPr", askField: "askPr")

    package func decode(_ frame: UnsafeRawBufferPointer, into table: inout StreamMarketTable, receivedAt: Date) -> StreamFrame {
        Self.frames.decode(frame, into: &table) { json, control in
            guard json.isString(control.event, "error") else { return nil }
            let text = control.msg.map(json.string) ?? ""
            // 30001: "instType:SPOT,channel:ticker,instId:XYZUSDT doesn't exist".
            var missing: [String] = []
            if control.code.map(json.string) == "30001" {
                missing = StreamRefusal.candidates(in: text)
                if let arg = control.arg, arg.kind == .object, let instrument = json.member("instId", ofObjectAt: arg.start) {
                    missing.append(json.string(instrument))
                }
            }
            return .rejected(reason: "\(control.code.map(json.string) ?? "?") \(text)", markets: missing)
        }
    }
}
