import Foundation
import MarketAlertCore
import MarketAlertKit

/// Bitfinex public WebSocket v2 (`wss://api-pub.bitfinex.com/ws/2`), channel `ticker` for every watched
/// symbol, one `{"event":"subscribe","channel":"ticker","symbol":…}` each, answered
/// `{"event":"subscribed","channel":"ticker","chanId":N,"symbol":…,"pair":…}`. Data frames name the channel
/// number, not the market: `[N,[BID,BID_SIZE,ASK,ASK_SIZE,DAILY_CHANGE,DAILY_CHANGE_RELATIVE,LAST_PRICE,
/// VOLUME,HIGH,LOW]]` (a sequence number may follow when a client asked for one), so the numbers of each
/// connection are kept in the market table (`bindChannel`). A channel quiet for 15 s gets `[N,"hb"]`.
///
/// Refusals echo the request: `{"channel":"ticker","symbol":"tXYZUSD","event":"error","msg":"symbol:
/// invalid","code":10300,…}`. More markets than the 25 channels a connection may carry (docs.bitfinex.com/
/// docs/ws-public) are spread over several connections (`maxMarketsPerConnection`). `info` events: 20051 (server restarting: reconnect) and 20061 (maintenance over: subscribe
/// again) open a replacement connection before this one goes; 20060 (maintenance starts, pause) keeps the
/// connection, whose markets then go quiet and are polled by REST until data returns.
///
/// v3 books (`keepingBooks`): a `book` channel (P0, `len` 25/100/250) beside each `ticker`, with checksums asked
/// for first (`{"event":"conf","flags":131072}`, acknowledged `{"event":"conf","status":"OK",…}`); see
/// `BitfinexBook`. Book channels are bound under the complement of their number, so a frame's number says
/// whether it is a ticker or a book. A book that fails its checksum is rebuilt by a replacement connection
/// (the default `bookResync`): Bitfinex unsubscribes only by channel number, which a resubscription built
/// from the market id alone cannot name, and its subscriptions answer with a snapshot.
package struct BitfinexStream: ExchangeStreamProtocol {
    /// v3: the P0 `len` of each book (nil: tickers only).
    package private(set) var bookLength: Int?

    package init() {}

    package func keepingBooks(levels: Int) -> BitfinexStream? {
        var configured = self
        configured.bookLength = BitfinexBook.length(levels: levels)
        return configured
    }

    package var exchange: ExchangeID { .bitfinex }
    /// Heartbeats every 15 s per quiet channel: two missed are a dead transport.
    package var keepalive: StreamKeepalive { .serverDriven(window: .seconds(30)) }
    /// "You can subscribe to 25 channels at the same time on the same connection"
    /// (docs.bitfinex.com/docs/ws-public); a market takes `ticker`, and `book` too when it keeps a book (the
    /// `conf` request is no channel).
    package var maxMarketsPerConnection: Int? { bookLength == nil ? 25 : 12 }

    package func marketID(_ pair: MarketPair) -> String { BitfinexTickerSource.symbol(pair) }

    package func subscription(for markets: [String]) -> StreamSubscription {
        let live = markets.filter { !BitfinexTickerSource.isTestPair($0) }
        let tickers = live.map { "{\"event\":\"subscribe\",\"channel\":\"ticker\",\"symbol\":\"\($0)\"}" }
        guard let bookLength else { return StreamSubscription(messages: tickers, acks: Set(live.map { "ticker:\($0)" })) }
        // Checksums are a connection's setting: asked for before the books are subscribed.
        var messages = ["{\"event\":\"conf\",\"flags\":\(BitfinexBook.checksumFlag)}"]
        for (symbol, ticker) in zip(live, tickers) {
            messages.append(ticker)
            messages.append("{\"event\":\"subscribe\",\"channel\":\"book\",\"symbol\":\"\(symbol)\",\"prec\":\"P0\",\"freq\":\"F0\",\"len\":\"\(bookLength)\"}")
        }
        return StreamSubscription(messages: messages, acks: Set(["conf"] + live.flatMap { ["ticker:\($0)", "book:\($0)"] }))
    }

    package func decode(_ frame: UnsafeRawBufferPointer, into table: inout StreamMarketTable, receivedAt: Date) -> StreamFrame {
        let json = JSONBytes(frame)
        guard let root = json.root, let (_, end) = json.value(at: root), json.skipSpace(end) == frame.count else { return .dropped(.malformed) }
        if json.bytes[root] == UInt8(ascii: "[") { return channelMessage(json, root, receivedAt: receivedAt, into: &table) }
        guard json.bytes[root] == UInt8(ascii: "{") else { return .dropped(.malformed) }
        var event = Event()
        json.members(ofObjectAt: root) { start, end, value in
            event.read(json, key: start, end, value)
            return true
        }
        guard let name = event.event else { return .dropped(.unknownMessage) }
        if json.isString(name, "subscribed") { return subscribed(json, event, into: &table) }
        if json.isString(name, "error") {
            let reason = "\(event.code.map(json.string) ?? "?") \(event.msg.map(json.string) ?? "")"
            let symbol = event.symbol.flatMap { $0.kind == .string ? json.string($0) : nil }
            return .rejected(reason: reason, markets: symbol.map { [$0] } ?? [])
        }
        if json.isString(name, "info") {
            guard let code = event.code else { return .heartbeat }  // the greeting: version and platform status
            if json.matches(code.start, code.end, "20051") || json.matches(code.start, code.end, "20061") { return .shutdownNotice }
            return .heartbeat  // 20060: maintenance, data pauses (REST covers the quiet markets)
        }
        if json.isString(name, "pong") { return .heartbeat }
        if bookLength != nil, json.isString(name, "conf") {
            guard event.status.map({ json.isString($0, "OK") }) == true else {
                return .rejected(reason: "conf \(event.status.map(json.string) ?? "?") \(event.msg.map(json.string) ?? "")")
            }
            return .acked(keys: ["conf"], complete: false)
        }
        return .ignored  // conf (tickers only), unsubscribed
    }

    /// `{"event":"subscribed","channel":"ticker","chanId":N,"symbol":"tBTCUSD",…}`: binds N on this connection.
    private func subscribed(_ json: JSONBytes, _ event: Event, into table: inout StreamMarketTable) -> StreamFrame {
        guard let channel = event.channel, let number = event.chanId.flatMap(json.integer), let symbol = event.symbol,
              symbol.kind == .string
        else { return .dropped(.malformed) }
        if bookLength != nil, json.isString(channel, "book") {
            if let index = table.index(of: json.slice(symbol)) { table.bindChannel(BitfinexBook.channelKey(number), to: index) }
            return .acked(keys: ["book:\(json.string(symbol))"], complete: false)
        }
        guard json.isString(channel, "ticker") else { return .ignored }
        if let index = table.index(of: json.slice(symbol)) { table.bindChannel(number, to: index) }
        return .acked(keys: ["ticker:\(json.string(symbol))"], complete: false)
    }

    /// `[N,[…]]` (ticker, or a book's snapshot or change), `[N,"hb"]` or `[N,"cs",CHECKSUM]`.
    private func channelMessage(_ json: JSONBytes, _ root: Int, receivedAt: Date, into table: inout StreamMarketTable) -> StreamFrame {
        var chanId: JSONBytes.Value?
        var payload: JSONBytes.Value?
        var third: JSONBytes.Value?
        var count = 0
        json.elements(ofArrayAt: root) { value in
            if count == 0 { chanId = value } else if count == 1 { payload = value } else { third = value }
            count += 1
            return count < 3
        }
        guard let number = chanId.flatMap(json.integer), let payload else { return .dropped(.malformed) }
        if payload.kind == .string {
            if json.isString(payload, "hb") { return .heartbeat }
            guard let bookLength, json.isString(payload, "cs") else { return .ignored }
            guard let index = table.index(ofChannel: BitfinexBook.channelKey(number)) else { return .unwatched }
            return BitfinexBook.check(json, third, index: index, length: bookLength, into: &table)
        }
        guard payload.kind == .array else { return .dropped(.malformed) }
        if let bookLength, let index = table.index(ofChannel: BitfinexBook.channelKey(number)) {
            return BitfinexBook.apply(json, payload, index: index, length: bookLength, receivedAt: receivedAt, into: &table)
        }
        var fields = StreamQuoteFields()
        var position = 0
        json.elements(ofArrayAt: payload.start) { value in
            switch position {
            case 0: fields.bid = Self.field(json, value)
            case 2: fields.ask = Self.field(json, value)
            case 6: fields.last = Self.field(json, value)
            default: break
            }
            position += 1
            return true
        }
        guard position >= 10 else { return .dropped(.malformed) }
        guard let index = table.index(ofChannel: number) else { return .unwatched }
        let market = table.entries[index].idBytes
        return market.withUnsafeBytes { table.apply(fields, market: $0) }
    }

    /// A ticker member: a number (anything else, `null` included, is unusable).
    static func field(_ json: JSONBytes, _ value: JSONBytes.Value) -> StreamQuoteFields.Field {
        value.kind == .number ? StreamQuoteFields.field(json, value) : .invalid
    }

    /// The members of Bitfinex's event messages.
    private struct Event {
        var event: JSONBytes.Value?
        var channel: JSONBytes.Value?
        var chanId: JSONBytes.Value?
        var symbol: JSONBytes.Value?
        var code: JSONBytes.Value?
        var msg: JSONBytes.Value?
        var status: JSONBytes.Value?

        mutating func read(_ json: JSONBytes, key start: Int, _ end: Int, _ value: JSONBytes.Value) {
            if json.matches(start, end, "event") { event = value }
            else if json.matches(start, end, "channel") { channel = value }
            else if json.matches(start, end, "chanId") { chanId = value }
            else if json.matches(start, end, "symbol") { symbol = value }
            else if json.matches(start, end, "code") { code = value }
            else if json.matches(start, end, "msg") { msg = value }
            else if json.matches(start, end, "status") { status = value }
        }
    }
}
