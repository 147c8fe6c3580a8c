import Foundation
import MarketAlertCore
import MarketAlertKit

/// Kraken spot WebSocket v2 (`wss://ws.kraken.com/v2`), channel `ticker` with `event_trigger: bbo` (an
/// update on every best bid/offer change, not only on trades) for every watched pair in one request:
/// `{"method":"subscribe","params":{"channel":"ticker","symbol":["BTC/USD",…],"event_trigger":"bbo","snapshot":true},"req_id":1}`.
/// Each symbol is acknowledged on its own (`{"method":"subscribe","result":{"symbol":…},"success":true}`);
/// `success:false` carries the error. v2 writes symbols `BASE/QUOTE` with normalized assets (`BTC`, not
/// `XBT`). Kraken pushes `{"channel":"heartbeat"}` about once a second: the client sends no ping.
///
/// v3 books (`keepingBooks`): a second request for channel `book` at the smallest depth Kraken accepts that
/// covers the levels (10, 25, 100, 500 or 1000), checked by its CRC-32 over the top 10 (`KrakenBook`).
package struct KrakenStream: ExchangeStreamProtocol {
    /// The `book` depth subscribed, nil: no books.
    package private(set) var bookDepth: Int?

    package init() {}

    package func keepingBooks(levels: Int) -> KrakenStream? {
        var configured = self
        configured.bookDepth = KrakenBook.depth(levels: levels)
        return configured
    }

    /// A book that failed its checksum: unsubscribed and subscribed again on the same connection, and Kraken
    /// answers the subscription with a fresh snapshot.
    package var bookResync: StreamBookResync {
        let depth = bookDepth ?? 10
        return .resubscribe { market in
            ["{\"method\":\"unsubscribe\",\"params\":{\"channel\":\"book\",\"symbol\":[\"\(market)\"],\"depth\":\(depth)},\"req_id\":3}",
             "{\"method\":\"subscribe\",\"params\":{\"channel\":\"book\",\"symbol\":[\"\(market)\"],\"depth\":\(depth),\"snapshot\":true},\"req_id\":4}"]
        }
    }

    /// Kraken's docs found state no subscription limit per connection: `maxMarketsPerConnection` stays nil.
    package var exchange: ExchangeID { .kraken }
    package var keepalive: StreamKeepalive { .serverDriven(window: .seconds(10)) }

    package func marketID(_ pair: MarketPair) -> String { "\(pair.base)/\(pair.quote)".uppercased() }

    package func subscription(for markets: [String]) -> StreamSubscription {
        let symbols = markets.map { "\"\($0)\"" }.joined(separator: ",")
        let message = "{\"method\":\"subscribe\",\"params\":{\"channel\":\"ticker\",\"symbol\":[\(symbols)],"
            + "\"event_trigger\":\"bbo\",\"snapshot\":true},\"req_id\":1}"
        guard let bookDepth else { return StreamSubscription(messages: [message], acks: Set(markets.map { "ticker:\($0)" })) }
        let book = "{\"method\":\"subscribe\",\"params\":{\"channel\":\"book\",\"symbol\":[\(symbols)],"
            + "\"depth\":\(bookDepth),\"snapshot\":true},\"req_id\":2}"
        return StreamSubscription(messages: [message, book], acks: Set(markets.flatMap { ["ticker:\($0)", "book:\($0)"] }))
    }

    package func decode(_ frame: UnsafeRawBufferPointer, into table: inout StreamMarketTable, receivedAt: Date) -> StreamFrame {
        let json = JSONBytes(frame)
        var channel: JSONBytes.Value?
        var data: JSONBytes.Value?
        var method: JSONBytes.Value?
        var result: JSONBytes.Value?
        var success: JSONBytes.Value?
        var error: JSONBytes.Value?
        var symbol: JSONBytes.Value?
        var type: JSONBytes.Value?
        let whole = json.rootMembers { start, end, value in
            if json.matches(start, end, "type") { type = value; return true }
            if json.matches(start, end, "channel") { channel = value }
            else if json.matches(start, end, "data") { data = value }
            else if json.matches(start, end, "method") { method = value }
            else if json.matches(start, end, "result") { result = value }
            else if json.matches(start, end, "success") { success = value }
            else if json.matches(start, end, "error") { error = value }
            else if json.matches(start, end, "symbol") { symbol = value }
            return true
        }
        guard whole else { return .dropped(.malformed) }
        if let method {
            guard json.isString(method, "subscribe") else { return method.kind == .string && json.isString(method, "pong") ? .heartbeat : .ignored }
            guard success.flatMap(json.bool) == true else {
                let what = symbol.map { " (\(json.string($0)))" } ?? ""
                let text = error.map(json.string) ?? "subscription refused"
                // "Currency pair not supported XYZ/USD", with the pair in `symbol`.
                let missing = text.contains("not supported") ? symbol.map { [json.string($0)] } ?? StreamRefusal.candidates(in: text) : []
                return .rejected(reason: text + what, markets: missing)
            }
            guard let result, result.kind == .object, let subscribed = json.member("symbol", ofObjectAt: result.start),
                  let name = json.member("channel", ofObjectAt: result.start)
            else { return .dropped(.malformed) }
            return .acked(keys: ["\(json.string(name)):\(json.string(subscribed))"], complete: false)
        }
        guard let channel, channel.kind == .string else { return .dropped(.unknownMessage) }
        if json.isString(channel, "heartbeat") || json.isString(channel, "status") { return .heartbeat }
        if json.isString(channel, "book"), let bookDepth {
            guard let data else { return .dropped(.malformed) }
            let snapshot = type.map { json.isString($0, "snapshot") } ?? false
            return KrakenBook.apply(json, data, snapshot: snapshot, depth: bookDepth, receivedAt: receivedAt, into: &table)
        }
        guard json.isString(channel, "ticker") else { return .ignored }
        guard let data, data.kind == .array else { return .dropped(.malformed) }
        var outcome = StreamFrame.dropped(.malformed)
        var applied = false
        json.elements(ofArrayAt: data.start) { row in
            guard row.kind == .object else { return false }
            var fields = StreamQuoteFields()
            var market: JSONBytes.Value?
            json.members(ofObjectAt: row.start) { start, end, value in
                if json.matches(start, end, "symbol") { market = value }
                else if json.matches(start, end, "bid") { fields.bid = StreamQuoteFields.field(json, value) }
                else if json.matches(start, end, "ask") { fields.ask = StreamQuoteFields.field(json, value) }
                else if json.matches(start, end, "last") { fields.last = StreamQuoteFields.field(json, value) }
                return true
            }
            guard let market, market.kind == .string else { return false }
            let applying = table.apply(fields, market: json.slice(market))
            if applying == .data { applied = true } else if !applied { outcome = applying }
            return true
        }
        return applied ? .data : outcome
    }
}
