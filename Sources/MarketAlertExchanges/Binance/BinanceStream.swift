import Foundation
import MarketAlertCore
import MarketAlertKit

/// Binance spot market streams (`wss://stream.binance.com:9443/ws`): `<symbol>@bookTicker` (best bid/ask,
/// real time) and `<symbol>@ticker` (last price, every second) for every watched symbol on one connection,
/// subscribed with `{"method":"SUBSCRIBE","params":[…],"id":N}` and acknowledged `{"result":null,"id":N}`;
/// errors arrive as `{"error":{"code":…,"msg":…},"id":N}` (or `{"code":…,"msg":…}`).
///
/// Binance pings every 20 s and drops a connection whose pong is a minute late; it accepts at most 5
/// client messages per second (pongs included); a connection lives 24 h, and a `serverShutdown` event
/// announces an early close: both start a replacement connection before the old one goes.
/// Frames of a combined stream (`{"stream":…,"data":{…}}`, the `/stream` endpoint) are read too.
///
/// Where no rule reads the best bid/ask (`withoutBestBidAsk`, every rule `basis: last`), `@bookTicker` is left
/// out: it is pushed on every change of the best bid or ask, on a busy market many times a second, while
/// `@ticker` comes once a second and carries the last price and the best bid/ask (`b`, `a`) too, which are
/// then taken from it.
///
/// v3 books (`keepingBooks`): `<symbol>@depth@100ms` diffs take `@bookTicker`'s place (best bid/ask follow the
/// book), applied on a REST `/api/v3/depth` snapshot the transport fetches (`bookResync`), with Binance's
/// rule (`BookSequence`): diffs wait for the snapshot, those with `u <= lastUpdateId` are dropped, the first
/// applied straddles it (`U <= lastUpdateId + 1 <= u`), then each `U` is the previous `u + 1`; a gap throws
/// the book away and fetches a fresh snapshot.
package struct BinanceStream: BestBidAskChannel {
    /// v3: the levels each book keeps (nil: tickers only).
    package private(set) var bookLevels: Int?
    /// Whether `@bookTicker` is subscribed (without books); false: `@ticker`'s bid/ask are used.
    package var streamsBestBidAsk = true

    package init() {}

    package func keepingBooks(levels: Int) -> BinanceStream? {
        var configured = self
        configured.bookLevels = max(1, levels)
        return configured
    }

    /// The snapshot's `limit`: twice the levels kept (what the book holds), at least 100 (the same request
    /// weight as fewer), at most Binance's 5000.
    package var snapshotLimit: Int { min(5000, max(100, 2 * (bookLevels ?? 50))) }

    /// "A single connection can listen to a maximum of 1024 streams" (developers.binance.com, spot WebSocket
    /// Streams, General WSS information); each market takes two (`@bookTicker` or `@depth@100ms`, and
    /// `@ticker`): 512, kept a little under.
    package var maxMarketsPerConnection: Int? { 500 }

    package var bookResync: StreamBookResync {
        let limit = snapshotLimit
        return .restSnapshot(path: { market in "/api/v3/depth?symbol=\(market)&limit=\(limit)" })
    }

    /// `{"lastUpdateId":N,"bids":[[p,q],…],"asks":[[p,q],…]}` seeds the book, then the diffs buffered
    /// meanwhile are applied by the sequence rule.
    package func seedBook(_ body: UnsafeRawBufferPointer, at index: Int, into table: inout StreamMarketTable, receivedAt: Date) -> Bool {
        let json = JSONBytes(body)
        guard let root = json.rootObject() else { return false }
        var lastUpdate: JSONBytes.Value?
        var bids: JSONBytes.Value?
        var asks: JSONBytes.Value?
        json.members(ofObjectAt: root) { start, end, value in
            if json.matches(start, end, "lastUpdateId") { lastUpdate = value }
            else if json.matches(start, end, "bids") { bids = value }
            else if json.matches(start, end, "asks") { asks = value }
            return true
        }
        guard let id = lastUpdate.flatMap(json.integer), let bids, let asks else { return false }
        table.beginBookSnapshot(index)
        guard table.setBookLevels(index, json, bids, bid: true), table.setBookLevels(index, json, asks, bid: false) else {
            table.invalidateBook(index)
            return false
        }
        // The snapshot carries no time of its own: it is as of its receipt.
        guard table.commitBook(index, at: receivedAt, snapshot: true) == nil else { return false }
        table.seedBookSequence(index, lastUpdate: UInt64(id))
        table.replayBookDiffs(index) { table, frame in _ = decode(frame, into: &table, receivedAt: receivedAt) }
        return true
    }

    package var exchange: ExchangeID { .binance }
    package var keepalive: StreamKeepalive { .serverDriven(window: .seconds(60)) }
    package var lifetime: Duration? { .seconds(24 * 3600) }
    package var outboundLimit: OutboundPacer? { OutboundPacer(limit: 5, per: .seconds(1)) }

    /// Streams per SUBSCRIBE message (Binance allows 1024 per connection).
    package static let streamsPerMessage = 200

    package func marketID(_ pair: MarketPair) -> String { BinanceTickerSource.symbol(pair) }

    package func subscription(for markets: [String]) -> StreamSubscription {
        let streams = markets.flatMap { market in
            let symbol = market.lowercased()
            if bookLevels != nil { return ["\(symbol)@depth@100ms", "\(symbol)@ticker"] }
            return streamsBestBidAsk ? ["\(symbol)@bookTicker", "\(symbol)@ticker"] : ["\(symbol)@ticker"]
        }
        var messages: [String] = []
        var acks: Set<String> = []
        for (number, start) in stride(from: 0, to: streams.count, by: Self.streamsPerMessage).enumerated() {
            let chunk = streams[start..<min(start + Self.streamsPerMessage, streams.count)]
            let id = number + 1
            let params = chunk.map { "\"\($0)\"" }.joined(separator: ",")
            messages.append("{\"method\":\"SUBSCRIBE\",\"params\":[\(params)],\"id\":\(id)}")
            acks.insert("id:\(id)")
        }
        return StreamSubscription(messages: messages, acks: acks)
    }

    package func decode(_ frame: UnsafeRawBufferPointer, into table: inout StreamMarketTable, receivedAt: Date) -> StreamFrame {
        let json = JSONBytes(frame)
        guard let root = json.root else { return .dropped(.malformed) }
        var fields = Fields()
        guard let end = fields.read(json, objectAt: root), json.skipSpace(end) == frame.count else { return .dropped(.malformed) }
        if let data = fields.data {
            // Combined stream: the payload is one level down.
            var inner = Fields()
            guard inner.read(json, objectAt: data.start) != nil else { return .dropped(.malformed) }
            return classify(inner, json, frame: frame, into: &table)
        }
        return classify(fields, json, frame: frame, into: &table)
    }

    private func classify(_ fields: Fields, _ json: JSONBytes, frame: UnsafeRawBufferPointer, into table: inout StreamMarketTable) -> StreamFrame {
        if let event = fields.e {
            if json.isString(event, "serverShutdown") { return .shutdownNotice }
            if json.isString(event, "depthUpdate") { return depth(fields, json, frame: frame, into: &table) }
            guard json.isString(event, "24hrTicker") else { return .ignored }
            guard let symbol = fields.s, symbol.kind == .string, let lastValue = fields.c else { return .dropped(.malformed) }
            guard let last = json.price(lastValue) else { return .dropped(.invalidPrice) }
            guard let index = table.index(of: json.slice(symbol)) else { return .unwatched }
            let time = fields.E.flatMap(json.integer).map { Date(timeIntervalSince1970: Double($0) / 1000) }
            table.apply(index, last: last, exchangeTime: time)
            // Without `@bookTicker` (and books), the ticker's best bid/ask are the freshest there are.
            if !streamsBestBidAsk, bookLevels == nil, let bid = fields.b.flatMap(json.price), let ask = fields.a.flatMap(json.price),
               bid.value <= ask.value {
                table.apply(index, bid: bid, ask: ask)
            }
            return .data
        }
        if let symbol = fields.s, let bidValue = fields.b, let askValue = fields.a, let updateID = fields.u {
            guard symbol.kind == .string, let sequence = json.integer(updateID) else { return .dropped(.malformed) }
            guard let bid = json.price(bidValue), let ask = json.price(askValue) else { return .dropped(.invalidPrice) }
            guard bid.value <= ask.value else { return .dropped(.crossedBook) }
            guard let index = table.index(of: json.slice(symbol)) else { return .unwatched }
            // `u`, the order book update id, only grows: a frame with an older one is late or repeated.
            guard table.admitSequence(sequence, at: index) else { return .dropped(.outOfOrder) }
            table.apply(index, bid: bid, ask: ask)
            return .data
        }
        if let error = fields.error ?? fields.msg {
            return .rejected(reason: "\(fields.code.map(json.string) ?? "") \(json.string(error))".trimmingCharacters(in: .whitespaces))
        }
        if fields.hasResult, let id = fields.id.flatMap(json.integer) {
            return .acked(keys: ["id:\(id)"], complete: false)
        }
        return .dropped(.unknownMessage)
    }

    /// A `depthUpdate` diff (v3 books): applied, buffered for the snapshot, skipped, or a gap.
    private func depth(_ fields: Fields, _ json: JSONBytes, frame: UnsafeRawBufferPointer, into table: inout StreamMarketTable) -> StreamFrame {
        guard table.keepsBooks else { return .ignored }
        guard let symbol = fields.s, symbol.kind == .string, let first = fields.U.flatMap(json.integer),
              let final = fields.u.flatMap(json.integer), final >= first, let bids = fields.b, let asks = fields.a
        else { return .dropped(.malformed) }
        guard let index = table.index(of: json.slice(symbol)) else { return .unwatched }
        switch table.checkBookSequence(index, first: UInt64(first), final: UInt64(final)) {
        case .buffer:
            // No snapshot yet: ask for one (once) and keep the diff for it.
            table.requestBookSnapshot(index, reason: nil)
            table.bufferBookDiff(index, frame)
            return .ignored
        case .skip:
            return .dropped(.outOfOrder)
        case .gap:
            table.requestBookSnapshot(index, reason: table.bookGapReason(index))
            table.bufferBookDiff(index, frame)
            return .data  // the book thrown away is handed on: the engine stops pricing with it
        case .apply:
            let time = fields.E.flatMap(json.integer).map { Date(timeIntervalSince1970: Double($0) / 1000) }
            guard table.setBookLevels(index, json, bids, bid: true), table.setBookLevels(index, json, asks, bid: false) else {
                table.requestBookSnapshot(index, reason: .sequenceGap)
                return .dropped(.malformed)
            }
            if let fault = table.commitBook(index, at: time ?? table.entries[index].exchangeTime ?? .distantPast, snapshot: false) {
                // A diff that crosses the book or sends an impossible level: a change was lost.
                table.requestBookSnapshot(index, reason: .sequenceGap)
                return .dropped(fault == .crossed ? .crossedBook : .invalidPrice)
            }
            table.noteBookChange(index)
            return .data
        }
    }

    /// The top-level members a Binance frame may carry.
    private struct Fields {
        var U: JSONBytes.Value?
        var e: JSONBytes.Value?
        var E: JSONBytes.Value?
        var s: JSONBytes.Value?
        var b: JSONBytes.Value?
        var a: JSONBytes.Value?
        var c: JSONBytes.Value?
        var u: JSONBytes.Value?
        var id: JSONBytes.Value?
        var code: JSONBytes.Value?
        var msg: JSONBytes.Value?
        var error: JSONBytes.Value?
        var data: JSONBytes.Value?
        var hasResult = false

        mutating func read(_ json: JSONBytes, objectAt index: Int) -> Int? {
            json.members(ofObjectAt: index) { start, end, value in
                if end - start == 1 {
                    switch json.bytes[start] {
                    case UInt8(ascii: "e"): e = value
                    case UInt8(ascii: "E"): E = value
                    case UInt8(ascii: "s"): s = value
                    case UInt8(ascii: "b"): b = value
                    case UInt8(ascii: "a"): a = value
                    case UInt8(ascii: "c"): c = value
                    case UInt8(ascii: "u"): u = value
                    case UInt8(ascii: "U"): U = value
                    default: break
                    }
                } else if json.matches(start, end, "id") {
                    id = value
                } else if json.matches(start, end, "result") {
                    hasResult = true
                } else if json.matches(start, end, "error") {
                    error = Self.errorMessage(json, value) ?? value
                    if code == nil { code = Self.errorCode(json, value) }
                } else if json.matches(start, end, "code") {
                    code = value
                } else if json.matches(start, end, "msg") {
                    msg = value
                } else if json.matches(start, end, "data"), value.kind == .object {
                    data = value
                }
                return true
            }
        }

        static func errorMessage(_ json: JSONBytes, _ value: JSONBytes.Value) -> JSONBytes.Value? {
            member(json, value, "msg")
        }

        static func errorCode(_ json: JSONBytes, _ value: JSONBytes.Value) -> JSONBytes.Value? {
            member(json, value, "code")
        }

        static func member(_ json: JSONBytes, _ value: JSONBytes.Value, _ name: StaticString) -> JSONBytes.Value? {
            guard value.kind == .object else { return nil }
            var found: JSONBytes.Value?
            json.members(ofObjectAt: value.start) { start, end, inner in
                if json.matches(start, end, name) { found = inner }
                return found == nil
            }
            return found
        }
    }
}
