import Foundation
import MarketAlertCore
import MarketAlertKit

/// OKX v5 public WebSocket (`wss://ws.okx.com:8443/ws/v5/public`), channel `tickers` (last, best bid and
/// ask) for every watched instrument in one `{"op":"subscribe","args":[{"channel":"tickers","instId":…},…]}`.
/// Each instrument is acknowledged on its own (`{"event":"subscribe","arg":{…}}`), errors arrive as
/// `{"event":"error","code":…,"msg":…}`. OKX drops a connection with no traffic for 30 s: the client sends
/// the text `ping` every 20 s and the server answers `pong`. A `notice` event (code 64008) announces a
/// service-upgrade disconnection: a replacement connection is opened before it.
///
/// v3 books (`keepingBooks`): channel `books` beside `tickers` for every instrument (a 400-level snapshot,
/// then changes every 100 ms, each with the CRC-32 of the top 25 levels; `OKXStyleBooks`).
package struct OKXStream: ExchangeStreamProtocol {
    /// The levels a depth rule reads, nil: no books.
    package private(set) var bookLevels: Int?

    package init() {}

    package func keepingBooks(levels: Int) -> OKXStream? {
        var configured = self
        configured.bookLevels = max(1, levels)
        return configured
    }

    /// A book that failed its checksum: unsubscribed and subscribed again on the same connection, and OKX
    /// answers the subscription with a fresh snapshot.
    package var bookResync: StreamBookResync {
        .resubscribe { market in
            [#"{"op":"unsubscribe","args":[{"channel":"books","instId":"\#(market)"}]}"#,
             #"{"op":"subscribe","args":[{"channel":"books","instId":"\#(market)"}]}"#]
        }
    }

    /// OKX documents no channel limit per connection (only 480 subscribe requests an hour per connection, 3
    /// connections a second, 64 KB a request): `maxMarketsPerConnection` stays nil, one connection.
    package var exchange: ExchangeID { .okx }
    package var keepalive: StreamKeepalive { .clientPings(.message, every: .seconds(20), window: .seconds(30)) }
    package var pingMessage: String { "ping" }

    package func marketID(_ pair: MarketPair) -> String { OKXTickerSource.instrumentID(pair) }

    /// OKX caps one subscribe request's channels by length (64 KB in the v5 docs, 4,096 bytes in earlier ones)
    /// and a connection to 480 subscribe requests an hour: requests of 50 instruments (about 2.3 KB) stay under
    /// both for any realistic watch list.
    package static let argsPerRequest = 50

    package func subscription(for markets: [String]) -> StreamSubscription {
        let channels = bookLevels == nil ? ["tickers"] : ["tickers", "books"]
        let args = markets.flatMap { market in channels.map { "{\"channel\":\"\($0)\",\"instId\":\"\(market)\"}" } }
        var messages: [String] = []
        for start in stride(from: 0, to: args.count, by: Self.argsPerRequest) {
            messages.append("{\"op\":\"subscribe\",\"args\":[\(args[start..<min(start + Self.argsPerRequest, args.count)].joined(separator: ","))]}")
        }
        return StreamSubscription(messages: messages, acks: Set(markets.flatMap { market in channels.map { "\($0):\(market)" } }))
    }

    package static let frames = OKXStyleFrames(channel: "tickers", lastField: "last", bidField: "bidPx", askField: "askPx")

    package func decode(_ frame: UnsafeRawBufferPointer, into table: inout StreamMarketTable, receivedAt: Date) -> StreamFrame {
        Self.frames.decode(frame, into: &table) { json, control in
            if json.isString(control.event, "error") {
                let text = control.msg.map(json.string) ?? ""
                // 60018: "Wrong URL or channel:tickers,instId:XYZ-USDT doesn't exist".
                let missing = control.code.map { json.isString($0, "60018") } == true ? StreamRefusal.candidates(in: text) : []
                return .rejected(reason: "\(control.code.map(json.string) ?? "?") \(text)", markets: missing)
            }
            if json.isString(control.event, "notice") { return control.code.map { json.isString($0, "64008") } == true ? .shutdownNotice : .ignored }
            return nil
        }
    }
}
