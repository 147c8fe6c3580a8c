import Foundation
import MarketAlertCore
import MarketAlertKit

/// HTX market WebSocket (`wss://api.huobi.pro/ws`): `market.<symbol>.bbo` (best bid and ask, on every
/// change, numbered by `seqId`) and `market.<symbol>.ticker` (24 h ticker; only its `lastPrice` is read, its
/// bid and ask trail the `bbo` channel) for every watched symbol, one `{"sub":topic,"id":topic}` each,
/// acknowledged `{"id":…,"status":"ok","subbed":topic,"ts":…}`; refusals are
/// `{"status":"error","err-code":"bad-request","err-msg":"invalid topic market.xyzusdt.ticker",…}`.
///
/// Every frame the server sends is a gzip-compressed binary message (inflated into the table's scratch
/// memory, nothing allocated per frame). The server pings with `{"ping":<ms>}` every 5 s and closes a
/// connection that misses two of them: each is answered `{"pong":<ms>}` at once. A frame that is not gzip
/// is read as the JSON it is (HTX never sends one; the fuzz seeds and kit checks are plain text).
///
/// Where no rule reads the best bid/ask (`withoutBestBidAsk`, every rule `basis: last`) and no book is kept,
/// `bbo` is left out: the ticker alone, quotes with the last price only.
///
/// v3 books (`keepingBooks`): `market.<symbol>.depth.step0` beside the two (`HTXBook`).
package struct HTXStream: BestBidAskChannel {
    /// v3: whether each market's book is kept (its levels are the table's).
    package private(set) var keepsBooks = false
    /// Whether `bbo` is subscribed.
    package var streamsBestBidAsk = true

    package init() {}

    package func keepingBooks(levels: Int) -> HTXStream? {
        var configured = self
        configured.keepsBooks = true
        return configured
    }

    /// HTX's docs found state no topic limit per connection: `maxMarketsPerConnection` stays nil, one connection.
    package var exchange: ExchangeID { .htx }
    /// Pings every 5 s: three missed ones mean the transport is gone.
    package var keepalive: StreamKeepalive { .serverDriven(window: .seconds(15)) }

    package func marketID(_ pair: MarketPair) -> String { HTXTickerSource.symbol(pair) }

    /// The topics of `market`: best bid/ask (unless left out) and the ticker, and its book where kept.
    func topics(_ market: String) -> [String] {
        if keepsBooks { return ["market.\(market).bbo", "market.\(market).ticker", HTXBook.topic(market)] }
        return streamsBestBidAsk ? ["market.\(market).bbo", "market.\(market).ticker"] : ["market.\(market).ticker"]
    }

    package func subscription(for markets: [String]) -> StreamSubscription {
        let topics = markets.flatMap(topics)
        return StreamSubscription(messages: topics.map { "{\"sub\":\"\($0)\",\"id\":\"\($0)\"}" }, acks: Set(topics))
    }

    package func decode(_ frame: UnsafeRawBufferPointer, into table: inout StreamMarketTable, receivedAt: Date) -> StreamFrame {
        guard HTXGzip.isGzip(frame) else { return decodeText(frame, into: &table) }
        var scratch: [UInt8] = []
        swap(&scratch, &table.scratch)
        defer { swap(&scratch, &table.scratch) }
        return HTXGzip.inflate(frame, scratch: &scratch, limit: StreamIntake.decodeLimit) { text in
            decodeText(text, into: &table)
        } ?? .dropped(.malformed)
    }

    /// One inflated message.
    func decodeText(_ text: UnsafeRawBufferPointer, into table: inout StreamMarketTable) -> StreamFrame {
        let json = JSONBytes(text)
        var message = Message()
        let whole = json.rootMembers { start, end, value in
            message.read(json, key: start, end, value)
            return true
        }
        guard whole else { return .dropped(.malformed) }
        if let ping = message.ping {
            guard ping.kind == .number, json.integer(ping) != nil else { return .dropped(.malformed) }
            return .reply("{\"pong\":\(json.string(ping))}")
        }
        if let channel = message.ch { return data(json, channel: channel, message, into: &table) }
        guard let status = message.status else { return .dropped(.unknownMessage) }
        if json.isString(status, "ok") {
            guard let subbed = message.subbed else { return .ignored }
            guard subbed.kind == .string else { return .dropped(.malformed) }
            return .acked(keys: [json.string(subbed)], complete: false)
        }
        guard json.isString(status, "error") else { return .dropped(.unknownMessage) }
        let code = message.errCode.map(json.string) ?? "?"
        let text = message.errMsg.map(json.string) ?? ""
        return .rejected(reason: "\(code) \(text)", markets: Self.refused(code: code, text: text, id: message.id.map(json.string)))
    }

    /// The words that may name refused markets: a `bad-request` about the topic or symbol (`invalid topic
    /// market.xyzusdt.ticker`, `invalid symbol`, `symbol trade not open now`), with the request's id, which is
    /// the topic here. Other errors (`429 too many request`) name none: they are the connection's.
    package static func refused(code: String, text: String, id: String?) -> [String] {
        guard code == "bad-request", text.hasPrefix("invalid topic") || text.hasPrefix("invalid symbol") || text.contains("not open") else { return [] }
        return StreamRefusal.candidates(in: text) + StreamRefusal.candidates(in: id ?? "")
    }

    /// `{"ch":"market.<symbol>.bbo"|"market.<symbol>.ticker"|"market.<symbol>.depth.step0","ts":…,"tick":{…}}`.
    private func data(_ json: JSONBytes, channel: JSONBytes.Value, _ message: Message, into table: inout StreamMarketTable) -> StreamFrame {
        guard json.hasPrefix(channel, "market.") else { return .dropped(.malformed) }
        let symbolStart = channel.start + 7
        var dot = symbolStart
        while dot < channel.end, json.bytes[dot] != UInt8(ascii: ".") { dot += 1 }
        guard dot > symbolStart, dot < channel.end else { return .dropped(.malformed) }
        let bbo = json.matches(dot + 1, channel.end, "bbo")
        let depth = json.matches(dot + 1, channel.end, "depth.step0")
        guard bbo || depth || json.matches(dot + 1, channel.end, "ticker") else { return .ignored }
        guard let tick = message.tick, tick.kind == .object else { return .dropped(.malformed) }
        if depth {
            return HTXBook.apply(json, tick: tick, ts: message.ts, market: UnsafeRawBufferPointer(rebasing: json.bytes[symbolStart..<dot]), into: &table)
        }
        var fields = StreamQuoteFields()
        var quoteTime: Date?
        json.members(ofObjectAt: tick.start) { start, end, value in
            if bbo {
                if json.matches(start, end, "bid") { fields.bid = StreamQuoteFields.field(json, value) }
                else if json.matches(start, end, "ask") { fields.ask = StreamQuoteFields.field(json, value) }
                else if json.matches(start, end, "quoteTime") { quoteTime = json.millis(value) }
                else if json.matches(start, end, "seqId") { fields.sequence = json.integer(value) }
            } else if json.matches(start, end, "lastPrice") {
                fields.last = StreamQuoteFields.field(json, value)
            }
            return true
        }
        fields.exchangeTime = quoteTime ?? json.millis(message.ts)
        return table.apply(fields, market: UnsafeRawBufferPointer(rebasing: json.bytes[symbolStart..<dot]))
    }

    /// The top-level members HTX's market messages use.
    private struct Message {
        var ping: JSONBytes.Value?
        var ch: JSONBytes.Value?
        var ts: JSONBytes.Value?
        var tick: JSONBytes.Value?
        var status: JSONBytes.Value?
        var subbed: JSONBytes.Value?
        var errCode: JSONBytes.Value?
        var errMsg: JSONBytes.Value?
        var id: JSONBytes.Value?

        mutating func read(_ json: JSONBytes, key start: Int, _ end: Int, _ value: JSONBytes.Value) {
            if json.matches(start, end, "ch") { ch = value }
            else if json.matches(start, end, "tick") { tick = value }
            else if json.matches(start, end, "ts") { ts = value }
            else if json.matches(start, end, "ping") { ping = value }
            else if json.matches(start, end, "status") { status = value }
            else if json.matches(start, end, "subbed") { subbed = value }
            else if json.matches(start, end, "err-code") { errCode = value }
            else if json.matches(start, end, "err-msg") { errMsg = value }
            else if json.matches(start, end, "id") { id = value }
        }
    }
}
