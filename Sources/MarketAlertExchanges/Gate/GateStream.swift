import Foundation
import MarketAlertCore
import MarketAlertKit

/// Gate API v4 spot WebSocket (`wss://api.gateio.ws/ws/v4/`): `spot.tickers` (last price, about once a
/// second) and `spot.book_ticker` (best bid and ask as they change, numbered by `u`) for every watched pair.
/// A request names one channel and a list of pairs,
/// `{"time":…,"id":…,"channel":"spot.tickers","event":"subscribe","payload":["BTC_USDT",…]}`; `time` (s)
/// may be at most 60 s from the server's clock, so each request is stamped when it is sent. Gate answers
/// each request as a whole: `{"id":…,"event":"subscribe","result":{"status":"success"}}`, or
/// `"error":{"code":2,"message":"unknown currency pair: XYZ_USDT"}` refusing the whole request. Requests
/// carry at most `pairsPerRequest` pairs. Keepalive: Gate keeps connections alive "on the protocol layer"
/// (its docs): it pings the client, which answers, and answers the client's WebSocket pings, sent every
/// 15 s here. Its application ping (`spot.ping`, answered by `spot.pong`, which is read as a heartbeat) would
/// need a fresh `time` in every ping; the protocol ping needs nothing. Where no rule reads the best bid/ask
/// (`withoutBestBidAsk`), `spot.book_ticker` is left out and quotes carry the last price only. v3 books:
/// `GateBook.swift`.
package struct GateStream: BestBidAskChannel {
    /// v3: the levels each book keeps (nil: tickers only).
    package internal(set) var bookLevels: Int?
    /// Whether `spot.book_ticker` is subscribed (without books).
    package var streamsBestBidAsk = true

    package init() {}

    /// Gate documents no subscription limit per connection (its maintainers: "No limit on subscriptions",
    /// github.com/gateio/gatews/issues/25): `maxMarketsPerConnection` stays nil, one connection.
    package var exchange: ExchangeID { .gate }
    package var keepalive: StreamKeepalive { .clientPings(.protocolFrame, every: .seconds(15), window: .seconds(30)) }

    /// Pairs per subscribe request. Gate answers a request as a whole and keeps one answer per channel
    /// message; requests of 100 pairs (about 1.3 KB) stay small whatever its per-message limits.
    package static let pairsPerRequest = 100
    package static let channels: [StaticString] = ["spot.tickers", "spot.book_ticker"]

    package func marketID(_ pair: MarketPair) -> String { GateTickerSource.currencyPair(pair) }

    /// Two requests (tickers, book_ticker) per chunk of pairs; each request's `id` comes from its channel
    /// and pairs, so a request sent again with fewer pairs after a refusal never shares one still pending.
    /// With books, `spot.order_book_update` requests (one per pair) take `spot.book_ticker`'s place; without
    /// the best bid/ask, tickers alone.
    package func subscription(for markets: [String]) -> StreamSubscription {
        let time = Self.seconds()
        var messages: [String] = []
        var acks: Set<String> = []
        var parts: [[String]] = []
        for start in stride(from: 0, to: markets.count, by: Self.pairsPerRequest) {
            let chunk = Array(markets[start..<min(start + Self.pairsPerRequest, markets.count)])
            let payload = chunk.map { "\"\($0)\"" }.joined(separator: ",")
            if bookLevels != nil {
                let books = bookSubscription(chunk, time: time)
                messages += books.messages
                acks.formUnion(books.acks)
                parts += books.parts
            }
            for (index, channel) in Self.channels.enumerated() where index == 0 || (bookLevels == nil && streamsBestBidAsk) {
                let id = Self.requestID(channel: index, pairs: chunk)
                messages.append("{\"time\":\(time),\"id\":\(id),\"channel\":\"\(channel)\",\"event\":\"subscribe\",\"payload\":[\(payload)]}")
                acks.insert("id:\(id)")
                parts.append(chunk)
            }
        }
        return StreamSubscription(messages: messages, acks: acks, refusesWholeMessage: true, parts: parts)
    }

    static func seconds() -> Int64 { Int64(Date().timeIntervalSince1970) }

    /// A positive id below 2^53 (JSON numbers stay exact) from the channel and the pairs.
    static func requestID(channel: Int, pairs: [String]) -> Int64 {
        let text = Array("\(channel):\(pairs.joined(separator: ","))".utf8)
        let hash = text.withUnsafeBytes(StreamMarketTable.hash)
        return Int64(hash % 1_000_000_000_000) + 1
    }

    package func decode(_ frame: UnsafeRawBufferPointer, into table: inout StreamMarketTable, receivedAt: Date) -> StreamFrame {
        let json = JSONBytes(frame)
        var channel: JSONBytes.Value?
        var event: JSONBytes.Value?
        var result: JSONBytes.Value?
        var error: JSONBytes.Value?
        var id: JSONBytes.Value?
        var seconds: JSONBytes.Value?
        var millis: JSONBytes.Value?
        var fields = ResultFields()
        // One scan: the result object's members are read where the walk meets it, not skipped and read again.
        let whole = json.rootWalk { start, end, value in
            switch end - start {
            case 2:
                if json.matches(start, end, "id") { id = value }
            case 4:
                if json.matches(start, end, "time") { seconds = value }
            case 5:
                if json.matches(start, end, "event") { event = value } else if json.matches(start, end, "error") { error = value }
            case 6:
                if json.matches(start, end, "result") {
                    result = value
                    if value.kind == .object { return .walked(fields.read(json, objectAt: value.start)) }
                }
            case 7:
                if json.matches(start, end, "channel") { channel = value } else if json.matches(start, end, "time_ms") { millis = value }
            default:
                break
            }
            return .next
        }
        guard whole else { return .dropped(.malformed) }
        guard let channel, channel.kind == .string else { return .dropped(.unknownMessage) }
        if json.isString(channel, "spot.pong") { return .heartbeat }
        guard let event, event.kind == .string else { return .dropped(.unknownMessage) }
        if json.isString(event, "subscribe") { return Self.answer(json, error: error, result: result, id: id) }
        guard json.isString(event, "update") else { return .ignored }
        guard let result, result.kind == .object else { return .dropped(.malformed) }
        if json.isString(channel, "spot.order_book_update") {
            return bookUpdate(json, fields, frame: frame, receivedAt: receivedAt, into: &table)
        }
        if json.isString(channel, "spot.tickers") {
            var quote = StreamQuoteFields()
            if let last = fields.last { quote.last = StreamQuoteFields.field(json, last) }
            guard let pair = fields.currencyPair, pair.kind == .string else { return .dropped(.malformed) }
            quote.exchangeTime = json.millis(millis) ?? seconds.flatMap(json.integer).flatMap { $0 > 0 ? Date(timeIntervalSince1970: Double($0)) : nil }
            return table.apply(quote, market: json.slice(pair))
        }
        if json.isString(channel, "spot.book_ticker") {
            var quote = StreamQuoteFields()
            if let bid = fields.b { quote.bid = StreamQuoteFields.field(json, bid) }
            if let ask = fields.a { quote.ask = StreamQuoteFields.field(json, ask) }
            if let time = fields.t { quote.exchangeTime = json.millis(time) }
            guard let pair = fields.s, pair.kind == .string else { return .dropped(.malformed) }
            // `u`, the order book's update id, grows with every change of the book.
            if let update = fields.u {
                guard let sequence = json.integer(update) else { return .dropped(.malformed) }
                quote.sequence = sequence
            }
            return table.apply(quote, market: json.slice(pair))
        }
        return .ignored
    }

    /// A subscribe answer: acknowledged by its request id, or refused (code 2 names the unknown pair).
    private static func answer(_ json: JSONBytes, error: JSONBytes.Value?, result: JSONBytes.Value?, id: JSONBytes.Value?) -> StreamFrame {
        if let error, error.kind == .object {
            let code = json.member("code", ofObjectAt: error.start).map(json.string) ?? "?"
            let message = json.member("message", ofObjectAt: error.start).map(json.string) ?? ""
            let missing = code == "2" && message.contains("unknown currency pair") ? StreamRefusal.candidates(in: message) : []
            return .rejected(reason: "code \(code): \(message)", markets: missing)
        }
        guard let result, result.kind == .object, let status = json.member("status", ofObjectAt: result.start) else {
            return .dropped(.malformed)
        }
        guard json.isString(status, "success") else { return .rejected(reason: "subscription \(json.string(status))") }
        guard let id, let number = json.integer(id) else { return .ignored }
        return .acked(keys: ["id:\(number)"], complete: false)
    }
}
