import Foundation
import MarketAlertCore
import MarketAlertKit

/// Upbit quotation stream (`wss://api.upbit.com/websocket/v1`): one request
/// `[{"ticket":…},{"type":"ticker","codes":[…]},{"type":"orderbook","codes":["KRW-BTC.1",…]},{"format":"SIMPLE"}]`
/// for every watched market (`.1`: the best level only). Upbit sends binary frames of plain JSON, never
/// acknowledges (the first market data proves the subscription) and reports request errors as
/// `{"error":{"name":…,"message":…}}`. The `SIMPLE` format abbreviates keys (`ty`, `cd`, `tp`, `obu.ap`);
/// both spellings are read. Keepalive: a WebSocket ping every 30 s (Upbit closes idle connections after
/// 120 s). No `Origin` header is sent: Upbit limits requests carrying one to 1 per 10 s.
/// Where no rule reads the best bid/ask (`withoutBestBidAsk`), `orderbook` is left out: the ticker alone.
package struct UpbitStream: BestBidAskChannel {
    package let ticket: String
    /// v3 books: the orderbook units asked for (1, 5, 15 or 30: Upbit's supported counts), nil: the best
    /// level only. Every orderbook push is a full snapshot of that many levels, so no sequence is kept.
    package private(set) var bookUnits: Int?
    /// Whether `orderbook` is subscribed without books (its best level: the quote's bid and ask). False where
    /// no rule reads them (`withoutBestBidAsk`): the ticker alone, the last price.
    package var streamsBestBidAsk = true

    package init(ticket: String = "marketalertd-\(UUID().uuidString.lowercased())") { self.ticket = ticket }

    /// Books of `levels` levels: the smallest count Upbit supports that covers them (at most 30).
    package func keepingBooks(levels: Int) -> UpbitStream? {
        var configured = self
        configured.bookUnits = [1, 5, 15, 30].first { $0 >= levels } ?? 30
        return configured
    }

    /// Upbit takes every code in one request and its docs found state no limit per connection:
    /// `maxMarketsPerConnection` stays nil, one connection.
    package var exchange: ExchangeID { .upbit }
    package var keepalive: StreamKeepalive { .clientPings(.protocolFrame, every: .seconds(30), window: .seconds(45)) }
    /// Upbit refuses more than 5 connection requests per second.
    package var reconnectFloor: Duration { .seconds(1) }

    package func marketID(_ pair: MarketPair) -> String { UpbitTickerSource.marketCode(pair) }

    package func subscription(for markets: [String]) -> StreamSubscription {
        UpbitStyleFrames.subscription(ticket: ticket, markets: markets, format: "SIMPLE", bookUnits: bookUnits ?? (streamsBestBidAsk ? 1 : nil))
    }

    package func decode(_ frame: UnsafeRawBufferPointer, into table: inout StreamMarketTable, receivedAt: Date) -> StreamFrame {
        UpbitStyleFrames.decode(frame, into: &table, time: .milliseconds)
    }
}

/// The request and frames Upbit and Bithumb (whose public WebSocket copies Upbit's) share.
package enum UpbitStyleFrames {
    /// `bookUnits`: the orderbook levels each push carries (`KRW-BTC.15`); 1 for the best level only; nil: no
    /// orderbook, the ticker alone.
    package static func subscription(ticket: String, markets: [String], format: String, bookUnits: Int? = 1) -> StreamSubscription {
        let codes = markets.map { "\"\($0)\"" }.joined(separator: ",")
        let books = bookUnits.map { units in
            "{\"type\":\"orderbook\",\"codes\":[\(markets.map { "\"\($0).\(units)\"" }.joined(separator: ","))]},"
        } ?? ""
        let message = "[{\"ticket\":\"\(ticket)\"},{\"type\":\"ticker\",\"codes\":[\(codes)]},\(books){\"format\":\"\(format)\"}]"
        return StreamSubscription(messages: [message], acks: [], liveOnFirstData: true)
    }

    /// How an exchange writes `timestamp` (`tms`).
    package enum TimeUnit {
        /// Milliseconds since 1970, as Upbit documents and sends them.
        case milliseconds
        /// Milliseconds, or microseconds where the value has 16 digits: Bithumb documents milliseconds, and
        /// its ticker frames carry them, but its orderbook frames carry microseconds (ccxt's Bithumb client
        /// keeps the first 13 digits). A millisecond time of 16 digits would be after the year 5000.
        case millisecondsOrMicroseconds
    }

    package static func decode(_ frame: UnsafeRawBufferPointer, into table: inout StreamMarketTable, time unit: TimeUnit) -> StreamFrame {
        let json = JSONBytes(frame)
        var type: JSONBytes.Value?
        var code: JSONBytes.Value?
        var trade: JSONBytes.Value?
        var units: JSONBytes.Value?
        var time: JSONBytes.Value?
        var error: JSONBytes.Value?
        var status: JSONBytes.Value?
        var booked: (frame: StreamFrame, index: Int)?
        // The walk checks the whole frame as it reads it (one scan, not a check and then a read).
        let whole = json.rootWalk { start, end, value in
            switch end - start {
            case 2:
                if json.matches(start, end, "ty") { type = value }
                else if json.matches(start, end, "cd") { code = value }
                else if json.matches(start, end, "tp") { trade = value }
            case 3:
                if json.matches(start, end, "obu") { units = value }
                else if json.matches(start, end, "tms") { time = value }
            default:
                if json.matches(start, end, "type") { type = value }
                else if json.matches(start, end, "code") { code = value }
                else if json.matches(start, end, "trade_price") { trade = value }
                else if json.matches(start, end, "orderbook_units") { units = value }
                else if json.matches(start, end, "timestamp") { time = value }
                else if json.matches(start, end, "error") { error = value }
                else if json.matches(start, end, "status") { status = value }
            }
            // A book push whose type, code and time came first (as Upbit and Bithumb send them) is applied
            // where its units are walked: one scan of the 2-3 KB instead of a skip and then a walk.
            guard let units, units.start == value.start, value.kind == .array, table.keepsBooks, error == nil, status == nil,
                  let type, json.isString(type, "orderbook"), let code, code.kind == .string,
                  let index = table.index(of: market(json, code)), let at = Self.time(json, time, unit)
            else { return .next }
            let (frame, unitsEnd) = wholeBook(json, units, index: index, time: at, into: &table)
            booked = (frame, index)
            return .walked(unitsEnd)
        }
        guard whole else {
            // Malformed after its units: the book they set is not trusted until the next push.
            if let booked { table.invalidateBook(booked.index) }
            return .dropped(.malformed)
        }
        if let booked { return booked.frame }
        if let error {
            guard error.kind == .object else { return .rejected(reason: json.string(error)) }
            let name = json.member("name", ofObjectAt: error.start).map(json.string) ?? "error"
            let message = json.member("message", ofObjectAt: error.start).map(json.string) ?? ""
            return .rejected(reason: "\(name): \(message)")
        }
        if status != nil { return .heartbeat }
        guard let type, type.kind == .string else { return .dropped(.unknownMessage) }
        guard let code, code.kind == .string else { return .dropped(.malformed) }
        var fields = StreamQuoteFields()
        fields.exchangeTime = Self.time(json, time, unit)
        if json.isString(type, "ticker") {
            guard let trade else { return .dropped(.malformed) }
            fields.last = StreamQuoteFields.field(json, trade)
            if case .absent = fields.last { fields.last = .invalid }
        } else if json.isString(type, "orderbook") {
            if table.keepsBooks, let units, units.kind == .array {
                guard let index = table.index(of: market(json, code)) else { return .unwatched }
                guard let time = fields.exchangeTime else { return .dropped(.malformed) }
                return wholeBook(json, units, index: index, time: time, into: &table).frame
            }
            guard let units, units.kind == .array, bestLevel(json, units, into: &fields) else { return .dropped(.malformed) }
        } else {
            return .ignored
        }
        return table.apply(fields, market: market(json, code))
    }

    /// The frame's time in `unit` (nil when absent or not a positive integer).
    private static func time(_ json: JSONBytes, _ value: JSONBytes.Value?, _ unit: TimeUnit) -> Date? {
        guard let value, let number = json.integer(value), number > 0 else { return nil }
        switch unit {
        case .milliseconds: return Date(timeIntervalSince1970: Double(number) / 1000)
        case .millisecondsOrMicroseconds:
            return Date(timeIntervalSince1970: Double(number) / (number >= 100_000_000_000_000 ? 1_000_000 : 1000))
        }
    }

    /// Bid and ask of the first orderbook unit (an empty list leaves both unknown: an empty book).
    private static func bestLevel(_ json: JSONBytes, _ units: JSONBytes.Value, into fields: inout StreamQuoteFields) -> Bool {
        var shapeOK = true
        var sawUnit = false
        json.elements(ofArrayAt: units.start) { unit in
            guard unit.kind == .object else { shapeOK = false; return false }
            sawUnit = true
            json.members(ofObjectAt: unit.start) { start, end, value in
                if json.matches(start, end, "ap") || json.matches(start, end, "ask_price") {
                    fields.ask = StreamQuoteFields.field(json, value)
                } else if json.matches(start, end, "bp") || json.matches(start, end, "bid_price") {
                    fields.bid = StreamQuoteFields.field(json, value)
                }
                return true
            }
            return false
        }
        if !sawUnit {
            fields.bid = .cleared
            fields.ask = .cleared
        }
        return shapeOK
    }

    /// A full orderbook push into the market's book: every unit's ask and bid level, replacing the last
    /// push (each one is a snapshot). A unit without four positive numbers makes the book unusable until the
    /// next push.
    /// Also returns the index after the units (nil: malformed, and the frame dropped).
    private static func wholeBook(
        _ json: JSONBytes, _ units: JSONBytes.Value, index: Int, time: Date, into table: inout StreamMarketTable
    ) -> (frame: StreamFrame, end: Int?) {
        table.beginBookSnapshot(index)
        var shapeOK = true
        // One scan per byte (`walkElements`, `walkMembers`): each unit is read where it is walked; a unit that
        // is malformed (the units are not scanned before) leaves the book unusable, as a bad unit does.
        let unitsEnd = json.walkElements(ofArrayAt: units.start) { unit in
            guard unit.kind == .object else { shapeOK = false; return .stop }
            var ask = (price: -1.0, size: -1.0)
            var bid = (price: -1.0, size: -1.0)
            let unitEnd = json.walkMembers(ofObjectAt: unit.start) { start, end, value in
                let number = json.quantity(value) ?? -1
                switch unitField(json, start, end) {
                case .askPrice: ask.price = number
                case .askSize: ask.size = number
                case .bidPrice: bid.price = number
                case .bidSize: bid.size = number
                case nil: break
                }
                return .next
            }
            // A side of zero size is an empty level of a thin book; anything else not positive is bad data.
            if ask.size != 0 { table.setBookLevel(index, bid: false, price: ask.price, size: ask.size) }
            if bid.size != 0 { table.setBookLevel(index, bid: true, price: bid.price, size: bid.size) }
            return .walked(unitEnd)
        }
        guard shapeOK, unitsEnd != nil else {
            table.invalidateBook(index)
            return (.dropped(.malformed), nil)
        }
        if let fault = table.commitBook(index, at: time, snapshot: true) {
            return (.dropped(fault == .crossed ? .crossedBook : .invalidPrice), unitsEnd)
        }
        return (.data, unitsEnd)
    }

    private enum UnitField { case askPrice, askSize, bidPrice, bidSize }

    /// Which level field a unit's key names (`ap`/`ask_price`, …), told by its length and first byte before
    /// one comparison: four full comparisons per member were a tenth of a push's time.
    @inline(__always)
    private static func unitField(_ json: JSONBytes, _ start: Int, _ end: Int) -> UnitField? {
        guard end - start >= 2 else { return nil }
        let ask = json.bytes[start] == UInt8(ascii: "a")
        guard ask || json.bytes[start] == UInt8(ascii: "b") else { return nil }
        switch end - start {
        case 2:
            if json.bytes[start + 1] == UInt8(ascii: "p") { return ask ? .askPrice : .bidPrice }
            if json.bytes[start + 1] == UInt8(ascii: "s") { return ask ? .askSize : .bidSize }
        case 8:
            if ask ? json.matches(start, end, "ask_size") : json.matches(start, end, "bid_size") { return ask ? .askSize : .bidSize }
        case 9:
            if ask ? json.matches(start, end, "ask_price") : json.matches(start, end, "bid_price") { return ask ? .askPrice : .bidPrice }
        default:
            break
        }
        return nil
    }

    /// The market code without an orderbook unit suffix (`KRW-BTC.1` → `KRW-BTC`).
    private static func market(_ json: JSONBytes, _ code: JSONBytes.Value) -> UnsafeRawBufferPointer {
        var end = code.start
        while end < code.end, json.bytes[end] != UInt8(ascii: ".") { end += 1 }
        return UnsafeRawBufferPointer(rebasing: json.bytes[code.start..<end])
    }
}
