import Foundation
import MarketAlertCore
import MarketAlertKit

/// Bybit v5 public spot stream (`wss://stream.bybit.com/v5/public/spot`): `orderbook.1.<SYMBOL>` for the
/// best bid and ask (spot `tickers` carries no bid/ask) and `tickers.<SYMBOL>` for the last price.
/// Spot accepts at most 10 topics per subscribe request, so the topics go out in requests of 10, each with
/// its `req_id` and acknowledged `{"success":true,"op":"subscribe","req_id":…}`; `success:false` is an
/// error (Bybit refuses the whole request). Keepalive: `{"op":"ping"}` every 20 s, answered
/// `{"success":true,"ret_msg":"pong","op":"ping"}` (spot) or `{"op":"pong"}`.
///
/// Depth-1 order book pushes are snapshots (both sides) or deltas: an empty side list leaves that side as it
/// was, a level of size 0 removes it; a delta whose only level on a side is removed empties that side.
///
/// Where no rule reads the best bid/ask (`withoutBestBidAsk`, every rule `basis: last`), `orderbook.1` is left
/// out and quotes carry the last price only.
///
/// v3 books (`keepingBooks`): `orderbook.50.<SYMBOL>` (`orderbook.200` beyond 25 levels kept) takes
/// `orderbook.1`'s place. Its first push after subscribing is a `snapshot`, then `delta`s whose `u` grows by
/// one per push (Bybit: "normally continuous"); a `snapshot` (also the `u = 1` one after a service restart)
/// replaces the book. A delta whose `u` is not the last `u + 1` is a gap: the book is thrown away and that
/// market's book topic is unsubscribed and subscribed again on the connection, which brings a snapshot.
package struct BybitStream: BestBidAskChannel {
    /// v3: the depth of the book topic (50 or 200; nil: tickers only, `orderbook.1`).
    package private(set) var bookDepth: Int?
    /// Whether `orderbook.1` is subscribed (without books).
    package var streamsBestBidAsk = true

    package init() {}

    /// Whether a market's book topic (`orderbook.1`, or the kept depth) goes out beside its ticker.
    private var subscribesBook: Bool { bookDepth != nil || streamsBestBidAsk }

    /// Each market's topics: its book unless left out, and its ticker.
    private func topics(_ market: String) -> [String] {
        subscribesBook ? ["\(bookTopic)\(market)", "tickers.\(market)"] : ["tickers.\(market)"]
    }

    package func keepingBooks(levels: Int) -> BybitStream? {
        var configured = self
        // The book keeps twice the levels a rule reads (see `BookSide`); spot offers depths 1, 50, 200, 1000.
        configured.bookDepth = 2 * levels <= 50 ? 50 : 200
        return configured
    }

    private var bookTopic: String { "orderbook.\(bookDepth ?? 1)." }

    package var bookResync: StreamBookResync {
        let topic = bookTopic
        return .resubscribe { market in
            [#"{"req_id":"unsub-\#(market)","op":"unsubscribe","args":["\#(topic)\#(market)"]}"#,
             #"{"req_id":"resync-\#(market)","op":"subscribe","args":["\#(topic)\#(market)"]}"#]
        }
    }

    /// Bybit's v5 docs limit the `args` of one request (10 on spot, which `subscription(for:)` keeps), not the
    /// topics of a connection: `maxMarketsPerConnection` stays nil, one connection.
    package var exchange: ExchangeID { .bybit }
    package var keepalive: StreamKeepalive { .clientPings(.message, every: .seconds(20), window: .seconds(30)) }
    package var pingMessage: String { #"{"op":"ping"}"# }

    package static let topicsPerRequest = 10

    package func marketID(_ pair: MarketPair) -> String { BybitTickerSource.symbol(pair) }

    /// Requests of at most 10 topics (5 markets, or 10 with the ticker alone); each `req_id` is named after its
    /// first market, so a request sent again after a refusal (Bybit refuses the whole request for one unknown
    /// symbol, and the other markets of it are asked for again on the same connection) never shares an id
    /// with one still pending.
    package func subscription(for markets: [String]) -> StreamSubscription {
        let perRequest = Self.topicsPerRequest / (subscribesBook ? 2 : 1)
        var messages: [String] = []
        var acks: Set<String> = []
        var parts: [[String]] = []
        for start in stride(from: 0, to: markets.count, by: perRequest) {
            let chunk = Array(markets[start..<min(start + perRequest, markets.count)])
            let topics = chunk.flatMap(topics)
            let id = "sub-\(chunk[0])"
            messages.append("{\"req_id\":\"\(id)\",\"op\":\"subscribe\",\"args\":[\(topics.map { "\"\($0)\"" }.joined(separator: ","))]}")
            acks.insert("req:\(id)")
            parts.append(chunk)
        }
        return StreamSubscription(messages: messages, acks: acks, refusesWholeMessage: true, parts: parts)
    }

    package func decode(_ frame: UnsafeRawBufferPointer, into table: inout StreamMarketTable, receivedAt: Date) -> StreamFrame {
        let json = JSONBytes(frame)
        var topic: JSONBytes.Value?
        var data: JSONBytes.Value?
        var op: JSONBytes.Value?
        var success: JSONBytes.Value?
        var message: JSONBytes.Value?
        var requestID: JSONBytes.Value?
        var time: JSONBytes.Value?
        var type: JSONBytes.Value?
        var fields = DataFields()
        // One scan: the data object's members are read where the walk meets it, not skipped and read again.
        let whole = json.rootWalk { start, end, value in
            // By length first: one comparison per key, not one per name.
            switch end - start {
            case 2:
                if json.matches(start, end, "ts") { time = value } else if json.matches(start, end, "op") { op = value }
            case 4:
                if json.matches(start, end, "data") {
                    data = value
                    if value.kind == .object { return .walked(fields.read(json, objectAt: value.start)) }
                } else if json.matches(start, end, "type") { type = value }
            case 5:
                if json.matches(start, end, "topic") { topic = value }
            case 6:
                if json.matches(start, end, "req_id") { requestID = value }
            case 7:
                if json.matches(start, end, "success") { success = value } else if json.matches(start, end, "ret_msg") { message = value }
            default:
                break
            }
            return .next
        }
        guard whole else { return .dropped(.malformed) }
        if let op {
            if json.isString(op, "pong") || (json.isString(op, "ping") && success.flatMap(json.bool) == true) { return .heartbeat }
            guard json.isString(op, "subscribe") else { return .ignored }
            guard success.flatMap(json.bool) == true else {
                let text = message.map(json.string) ?? "subscription refused"
                // "Invalid symbol :[tickers.XYZUSDT]": Bybit refuses the whole request for one unknown symbol.
                let missing = text.contains("Invalid symbol") ? StreamRefusal.candidates(in: text) : []
                return .rejected(reason: text, markets: missing)
            }
            return .acked(keys: ["req:\(requestID.map(json.string) ?? "")"], complete: false)
        }
        guard let topic, topic.kind == .string, let data, data.kind == .object else { return .dropped(.unknownMessage) }
        if table.keepsBooks, json.hasPrefix(topic, "orderbook.") {
            let snapshot = type.map { json.isString($0, "snapshot") } ?? false
            return wholeBook(json, fields, snapshot: snapshot, time: json.millis(time), into: &table)
        }
        if json.hasPrefix(topic, "orderbook.1.") {
            let snapshot = type.map { json.isString($0, "snapshot") } ?? false
            return book(json, fields, snapshot: snapshot, time: json.millis(time), into: &table)
        }
        if json.hasPrefix(topic, "tickers.") {
            var quote = StreamQuoteFields()
            if let last = fields.lastPrice { quote.last = StreamQuoteFields.field(json, last) }
            quote.exchangeTime = json.millis(time)
            guard let symbol = fields.symbol, symbol.kind == .string else { return .dropped(.malformed) }
            return table.apply(quote, market: json.slice(symbol))
        }
        return .ignored
    }

    private func book(
        _ json: JSONBytes, _ data: DataFields, snapshot: Bool, time: Date?, into table: inout StreamMarketTable
    ) -> StreamFrame {
        var fields = StreamQuoteFields()
        if let bids = data.b, !Self.side(json, bids, into: &fields.bid) { return .dropped(.malformed) }
        if let asks = data.a, !Self.side(json, asks, into: &fields.ask) { return .dropped(.malformed) }
        guard let symbol = data.s, symbol.kind == .string else { return .dropped(.malformed) }
        let updateID = data.u
        if snapshot {
            // A snapshot is the whole book: a side it leaves empty is empty.
            if case .absent = fields.bid { fields.bid = .cleared }
            if case .absent = fields.ask { fields.ask = .cleared }
        }
        fields.exchangeTime = time
        // `u`, the update id, grows with each delta; a snapshot (sent again after a service restart, with
        // `u` = 1) starts it over.
        if let updateID {
            guard let sequence = json.integer(updateID) else { return .dropped(.malformed) }
            fields.sequence = sequence
            fields.sequenceRestarts = snapshot
        }
        return table.apply(fields, market: json.slice(symbol))
    }

    /// A v3 book push: a snapshot replaces the book; a delta is applied when its `u` follows the last one.
    private func wholeBook(
        _ json: JSONBytes, _ data: DataFields, snapshot: Bool, time: Date?, into table: inout StreamMarketTable
    ) -> StreamFrame {
        guard let symbol = data.s, symbol.kind == .string, let update = data.u.flatMap(json.integer), let bids = data.b, let asks = data.a
        else { return .dropped(.malformed) }
        guard let index = table.index(of: json.slice(symbol)) else { return .unwatched }
        let at = time ?? table.entries[index].exchangeTime ?? .distantPast
        if snapshot {
            table.beginBookSnapshot(index)
            guard table.setBookLevels(index, json, bids, bid: true), table.setBookLevels(index, json, asks, bid: false) else {
                table.invalidateBook(index)
                return .dropped(.malformed)
            }
            if let fault = table.commitBook(index, at: at, snapshot: true) {
                return .dropped(fault == .crossed ? .crossedBook : .invalidPrice)
            }
            table.seedBookSequence(index, lastUpdate: UInt64(update))
            table.noteBookChange(index)
            return .data
        }
        switch table.checkBookSequence(index, first: UInt64(update), final: UInt64(update)) {
        case .buffer:
            return .ignored  // no snapshot since the book was thrown away: the subscription's own is on its way
        case .skip:
            return .dropped(.outOfOrder)
        case .gap:
            table.requestBookSnapshot(index, reason: table.bookGapReason(index))
            return .data
        case .apply:
            guard table.setBookLevels(index, json, bids, bid: true), table.setBookLevels(index, json, asks, bid: false) else {
                table.requestBookSnapshot(index, reason: .sequenceGap)
                return .dropped(.malformed)
            }
            if let fault = table.commitBook(index, at: at, snapshot: false) {
                table.requestBookSnapshot(index, reason: .sequenceGap)
                return .dropped(fault == .crossed ? .crossedBook : .invalidPrice)
            }
            table.noteBookChange(index)
            return .data
        }
    }

    /// The best level of one side: the first `[price, size]` with a size above zero; a list of removals
    /// only empties the side; an empty list leaves it absent. False when the shape is wrong.
    private static func side(_ json: JSONBytes, _ value: JSONBytes.Value, into field: inout StreamQuoteFields.Field) -> Bool {
        guard value.kind == .array else { return false }
        var shapeOK = true
        field = .absent
        json.elements(ofArrayAt: value.start) { level in
            guard level.kind == .array else { shapeOK = false; return false }
            var count = 0
            var price: JSONBytes.Value?
            var size: JSONBytes.Value?
            json.elements(ofArrayAt: level.start) { part in
                if count == 0 { price = part } else if count == 1 { size = part }
                count += 1
                return true
            }
            guard let price, let size, count == 2 else { shapeOK = false; return false }
            if StreamQuoteFields.isZero(json, size) {
                field = .cleared
                return true  // a removal; a later level may be the new best
            }
            field = StreamQuoteFields.field(json, price)
            if case .absent = field { field = .invalid }
            return false
        }
        return shapeOK
    }

    /// The members of a push's `data` object that its topics read (books: `s`, `u`, `b`, `a`; tickers:
    /// `symbol`, `lastPrice`), gathered as the frame's one walk passes them.
    private struct DataFields {
        var s: JSONBytes.Value?
        var u: JSONBytes.Value?
        var b: JSONBytes.Value?
        var a: JSONBytes.Value?
        var symbol: JSONBytes.Value?
        var lastPrice: JSONBytes.Value?

        /// Reads the object at `index` (every value scanned, so malformed input ends the walk); the index
        /// after it, or nil when malformed.
        mutating func read(_ json: JSONBytes, objectAt index: Int) -> Int? {
            json.walkMembers(ofObjectAt: index, depth: 1) { start, end, value in
                switch end - start {
                case 1:
                    if json.matches(start, end, "s") { s = value }
                    else if json.matches(start, end, "u") { u = value }
                    else if json.matches(start, end, "b") { b = value }
                    else if json.matches(start, end, "a") { a = value }
                case 6:
                    if json.matches(start, end, "symbol") { symbol = value }
                case 9:
                    if json.matches(start, end, "lastPrice") { lastPrice = value }
                default:
                    break
                }
                return .next
            }
        }
    }
}
