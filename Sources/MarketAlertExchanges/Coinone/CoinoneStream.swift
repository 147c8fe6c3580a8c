import Foundation
import MarketAlertCore
import MarketAlertKit

/// Coinone public WebSocket (`wss://stream.coinone.co.kr`), channel `TICKER`: one request per market,
/// `{"request_type":"SUBSCRIBE","channel":"TICKER","topic":{"quote_currency":"KRW","target_currency":"BTC"}}`,
/// each acknowledged by `{"response_type":"SUBSCRIBED","channel":"TICKER","data":{"quote_currency":"KRW",
/// "target_currency":"BTC"}}` (Coinone's docs). Data arrives as `{"response_type":"DATA","channel":"TICKER",
/// "data":{…,"last","ask_best_price","bid_best_price","timestamp","id"}}` (upper-case currencies, decimal
/// strings, an empty book side `null`, ms; `id` grows with every ticker of a market); errors as
/// `{"response_type":"ERROR","error_code":…,"message":…}`, which name no market. Keepalive: the client sends
/// `{"request_type":"PING"}` every 20 s and gets `{"response_type":"PONG"}` (Coinone drops a connection that
/// stops pinging). v3 books: `CoinoneBook.swift`.
package struct CoinoneStream: ExchangeStreamProtocol {
    /// v3: the levels each book keeps (nil: tickers only).
    package internal(set) var bookLevels: Int?

    package init() {}

    /// Coinone's docs found state no subscription limit per connection: `maxMarketsPerConnection` stays nil.
    package var exchange: ExchangeID { .coinone }
    package var keepalive: StreamKeepalive { .clientPings(.message, every: .seconds(20), window: .seconds(30)) }
    package var pingMessage: String { #"{"request_type":"PING"}"# }

    package func marketID(_ pair: MarketPair) -> String { CoinoneTickerSource.marketID(pair) }

    package func subscription(for markets: [String]) -> StreamSubscription {
        let channels = bookLevels == nil ? ["TICKER"] : ["TICKER", "ORDERBOOK"]
        let messages = markets.flatMap { market -> [String] in
            let parts = market.split(separator: "-", maxSplits: 1)
            let (target, quote) = parts.count == 2 ? (String(parts[0]), String(parts[1])) : (market, "KRW")
            return channels.map { channel in
                "{\"request_type\":\"SUBSCRIBE\",\"channel\":\"\(channel)\",\"topic\":{\"quote_currency\":\"\(quote)\",\"target_currency\":\"\(target)\"}}"
            }
        }
        return StreamSubscription(messages: messages, acks: Set(markets.flatMap { market in channels.map { "\($0):\(market)" } }))
    }

    package func decode(_ frame: UnsafeRawBufferPointer, into table: inout StreamMarketTable, receivedAt: Date) -> StreamFrame {
        let json = JSONBytes(frame)
        var type: JSONBytes.Value?
        var channel: JSONBytes.Value?
        var data: JSONBytes.Value?
        var code: JSONBytes.Value?
        var message: JSONBytes.Value?
        let whole = json.rootMembers { start, end, value in
            if json.matches(start, end, "response_type") { type = value }
            else if json.matches(start, end, "channel") { channel = value }
            else if json.matches(start, end, "data") { data = value }
            else if json.matches(start, end, "error_code") { code = value }
            else if json.matches(start, end, "message") { message = value }
            return true
        }
        guard whole else { return .dropped(.malformed) }
        guard let type, type.kind == .string else { return .dropped(.unknownMessage) }
        if json.isString(type, "PONG") { return .heartbeat }
        if json.isString(type, "SUBSCRIBED") {
            // The topic as sent; the market id is the target alone for KRW, `BASE-QUOTE` otherwise.
            guard let data, data.kind == .object, let target = json.member("target_currency", ofObjectAt: data.start),
                  let quote = json.member("quote_currency", ofObjectAt: data.start) else { return .dropped(.malformed) }
            let base = json.string(target).uppercased()
            let market = json.string(quote).uppercased() == "KRW" ? base : "\(base)-\(json.string(quote).uppercased())"
            return .acked(keys: ["\(channel.map(json.string) ?? ""):\(market)"], complete: false)
        }
        if json.isString(type, "ERROR") {
            return .rejected(reason: "error_code \(code.map(json.string) ?? "?"): \(message.map(json.string) ?? "")")
        }
        guard json.isString(type, "DATA") else { return .ignored }
        if let channel, json.isString(channel, "ORDERBOOK") {
            guard let data, data.kind == .object else { return .dropped(.malformed) }
            return Self.orderbook(json, data: data, receivedAt: receivedAt, into: &table)
        }
        guard let channel, json.isString(channel, "TICKER") else { return .ignored }
        guard let data, data.kind == .object else { return .dropped(.malformed) }
        let bestLevels = !table.keepsBooks  // with books, the best bid and ask follow the book
        var target: JSONBytes.Value?
        var quote: JSONBytes.Value?
        var id: JSONBytes.Value?
        var fields = StreamQuoteFields()
        json.members(ofObjectAt: data.start) { start, end, value in
            if json.matches(start, end, "target_currency") { target = value }
            else if json.matches(start, end, "quote_currency") { quote = value }
            else if json.matches(start, end, "last") { fields.last = StreamQuoteFields.field(json, value) }
            else if json.matches(start, end, "bid_best_price") { if bestLevels { fields.bid = StreamQuoteFields.field(json, value) } }
            else if json.matches(start, end, "ask_best_price") { if bestLevels { fields.ask = StreamQuoteFields.field(json, value) } }
            else if json.matches(start, end, "timestamp") { fields.exchangeTime = json.millis(value) }
            else if json.matches(start, end, "id") { id = value }
            return true
        }
        guard let target, target.kind == .string, let quote, quote.kind == .string else { return .dropped(.malformed) }
        if let id {
            guard let sequence = json.integer(id) else { return .dropped(.malformed) }
            fields.sequence = sequence
        }
        // Every Coinone market is a KRW market; its id in the table is the base alone.
        guard json.isString(quote, "KRW") else { return .unwatched }
        return table.apply(fields, market: json.slice(target))
    }
}
