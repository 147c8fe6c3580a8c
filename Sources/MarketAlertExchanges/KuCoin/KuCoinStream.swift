import Foundation
import MarketAlertCore
import MarketAlertKit

/// KuCoin spot WebSocket. Each connection first asks `POST {base_url}/api/v1/bullet-public` for a server and
/// a token (`{"code":"200000","data":{"token":…,"instanceServers":[{"endpoint":"wss://ws-api-spot.kucoin.com/",
/// "pingInterval":18000,"pingTimeout":10000,…}]}}`) and connects to `endpoint?token=…` (the optional
/// `connectId` only names the welcome message); every
/// reconnect asks again, which is also how an expired token (`"token is expired"`) is replaced. The server
/// greets with `{"id":…,"type":"welcome"}`. Topics `/market/ticker:BTC-USDT,ETH-USDT` (best bid, ask and last
/// trade, numbered by `sequence`), at most 100 pairs per request:
/// `{"id":…,"type":"subscribe","topic":…,"privateChannel":false,"response":true}` → `{"id":…,"type":"ack"}`,
/// or `{"id":…,"type":"error","code":…,"data":…}` for the whole request. Keepalive: `{"id":…,"type":"ping"}`
/// → `{"id":…,"type":"pong"}`, at the `pingInterval` and `pingTimeout` each bullet's server gives (every 15 s
/// of its 18 s, given up after 25 s of 18 + 10 s: `keepalive(pingInterval:pingTimeout:)`; these figures are
/// also the protocol's own, for an answer that gives none). At most 100 client messages per
/// 10 s. v3 books: `KuCoinBook.swift`.
package struct KuCoinStream: ExchangeStreamProtocol {
    /// v3: the levels each book keeps (nil: tickers only).
    package internal(set) var bookLevels: Int?

    package init() {}

    package var exchange: ExchangeID { .kucoin }
    package var keepalive: StreamKeepalive { .clientPings(.message, every: .seconds(15), window: .seconds(25)) }
    package var pingMessage: String { #"{"id":"marketalertd-ping","type":"ping"}"# }
    package var outboundLimit: OutboundPacer? { OutboundPacer(limit: 100, per: .seconds(10)) }

    package static let pairsPerRequest = 100

    /// KuCoin's FAQ (docs.kucoin.com, "Subscription limit for each connection: 300 topics"; a pair in a
    /// `/market/ticker:A,B` topic counts as one) — ccxws's client caps 100 per socket, more cautious than the
    /// docs; a market takes `/market/ticker`, and `/market/level2` too when it keeps a book: kept under 300.
    package var maxMarketsPerConnection: Int? { bookLevels == nil ? 280 : 140 }
    package static let bulletPath = "/api/v1/bullet-public"

    package var endpointRequest: StreamEndpointRequest? { StreamEndpointRequest(path: Self.bulletPath, endpoint: Self.endpoint) }

    package func marketID(_ pair: MarketPair) -> String { KuCoinTickerSource.symbol(pair) }

    /// One request per 100 pairs (and per topic: `/market/ticker`, with books `/market/level2` too); each
    /// `id` comes from its topic, so a request sent again with fewer pairs after a refusal never shares one
    /// still pending.
    package func subscription(for markets: [String]) -> StreamSubscription {
        var messages: [String] = []
        var acks: Set<String> = []
        var parts: [[String]] = []
        let prefixes = bookLevels == nil ? ["/market/ticker:"] : ["/market/ticker:", "/market/level2:"]
        for start in stride(from: 0, to: markets.count, by: Self.pairsPerRequest) {
            let chunk = Array(markets[start..<min(start + Self.pairsPerRequest, markets.count)])
            for prefix in prefixes {
                let topic = prefix + chunk.joined(separator: ",")
                let id = Self.requestID(topic)
                messages.append("{\"id\":\"\(id)\",\"type\":\"subscribe\",\"topic\":\"\(topic)\",\"privateChannel\":false,\"response\":true}")
                acks.insert("id:\(id)")
                parts.append(chunk)
            }
        }
        return StreamSubscription(messages: messages, acks: acks, refusesWholeMessage: true, parts: parts)
    }

    static func requestID(_ topic: String) -> String {
        let hash = Array(topic.utf8).withUnsafeBytes(StreamMarketTable.hash)
        return "sub-\(String(hash, radix: 36))"
    }

    /// The WebSocket URL of a bullet answer: the first WebSocket instance server's endpoint with the token
    /// in its query, and the keepalive that server asks for (`keepalive(pingInterval:pingTimeout:)`).
    static func endpoint(_ body: Data) throws(StreamEndpointError) -> StreamEndpoint {
        guard let bullet = try? JSONDecoder().decode(Bullet.self, from: body) else {
            throw StreamEndpointError("bullet: not the documented answer (\(HTTPAnswer.snippet(body).dropFirst(2)))")
        }
        guard bullet.code.text == "200000", let data = bullet.data else {
            throw StreamEndpointError("bullet: code \(bullet.code.text) \(bullet.msg ?? "")")
        }
        guard let server = data.instanceServers.first(where: { $0.protocol == nil || $0.protocol == "websocket" }),
              !data.token.isEmpty, let scheme = URL(string: server.endpoint)?.scheme?.lowercased(), scheme == "wss" || scheme == "ws"
        else { throw StreamEndpointError("bullet: no WebSocket server or token") }
        let separator = server.endpoint.contains("?") ? "&" : "?"
        let query = "token=\(ExchangeEndpoint.encode(data.token))"
        guard let url = URL(string: server.endpoint + separator + query) else { throw StreamEndpointError("bullet: unusable endpoint \(server.endpoint)") }
        return StreamEndpoint(url: url, keepalive: keepalive(pingInterval: server.pingInterval, pingTimeout: server.pingTimeout))
    }

    /// The keepalive a bullet's server asks for: a ping every five sixths of its `pingInterval` (15 s of
    /// 18 s), and the connection given up when nothing came for `pingInterval + pingTimeout` less 3 s (25 s
    /// of 28 s). Nil (the protocol's 15 s and 25 s) when the answer gives no interval or an implausible one
    /// (under 1 s or over 10 min).
    static func keepalive(pingInterval: Int?, pingTimeout: Int?) -> StreamKeepalive? {
        guard let interval = pingInterval, (1_000...600_000).contains(interval) else { return nil }
        let timeout = pingTimeout.map { min(max($0, 0), 600_000) } ?? 10_000
        let every = Duration.milliseconds(interval * 5 / 6)
        let window = Duration.milliseconds(max(interval + timeout - 3_000, interval))
        return StreamKeepalive(ping: .message, interval: every, window: window)
    }

    struct Bullet: Decodable {
        var code: WireCode
        var msg: String?
        var data: Payload?

        struct Payload: Decodable {
            var token: String
            var instanceServers: [Server]
        }

        struct Server: Decodable {
            var endpoint: String
            var `protocol`: String?
            var pingInterval: Int?
            var pingTimeout: Int?
        }
    }

    package func decode(_ frame: UnsafeRawBufferPointer, into table: inout StreamMarketTable, receivedAt: Date) -> StreamFrame {
        let json = JSONBytes(frame)
        var type: JSONBytes.Value?
        var id: JSONBytes.Value?
        var topic: JSONBytes.Value?
        var data: JSONBytes.Value?
        var code: JSONBytes.Value?
        var fields = DataFields()
        // One scan: the data object's members (and its `changes`) are read where the walk meets them.
        let whole = json.rootWalk { start, end, value in
            switch end - start {
            case 2:
                if json.matches(start, end, "id") { id = value }
            case 4:
                if json.matches(start, end, "data") {
                    data = value
                    if value.kind == .object { return .walked(fields.read(json, objectAt: value.start)) }
                } else if json.matches(start, end, "type") { type = value } else if json.matches(start, end, "code") { code = value }
            case 5:
                if json.matches(start, end, "topic") { topic = value }
            default:
                break
            }
            return .next
        }
        guard whole else { return .dropped(.malformed) }
        guard let type, type.kind == .string else { return .dropped(.unknownMessage) }
        if json.isString(type, "message") {
            guard let topic, let data, data.kind == .object else { return .dropped(.malformed) }
            if json.hasPrefix(topic, "/market/level2:") { return Self.level2(json, fields, frame: frame, receivedAt: receivedAt, into: &table) }
            guard json.hasPrefix(topic, "/market/ticker:") else { return .dropped(.malformed) }
            return Self.ticker(json, topic: topic, fields, bestLevels: !table.keepsBooks, into: &table)
        }
        if json.isString(type, "pong") || json.isString(type, "welcome") { return .heartbeat }
        if json.isString(type, "ack") {
            guard let id else { return .dropped(.malformed) }
            return .acked(keys: ["id:\(json.string(id))"], complete: false)
        }
        if json.isString(type, "error") {
            let text = data.map(json.string) ?? ""
            // "topic /market/ticker:XYZ-USDT is not found": the request is refused whole.
            let missing = text.contains("not found") || text.contains("not exist") ? StreamRefusal.candidates(in: text) : []
            return .rejected(reason: "code \(code.map(json.string) ?? "?"): \(text)", markets: missing)
        }
        return .ignored
    }

    /// `bestLevels` false (books kept): the best bid and ask follow the book, the ticker brings the last price.
    private static func ticker(
        _ json: JSONBytes, topic: JSONBytes.Value, _ data: DataFields, bestLevels: Bool, into table: inout StreamMarketTable
    ) -> StreamFrame {
        var fields = StreamQuoteFields()
        if bestLevels, let bid = data.bestBid { fields.bid = StreamQuoteFields.field(json, bid) }
        if bestLevels, let ask = data.bestAsk { fields.ask = StreamQuoteFields.field(json, ask) }
        if let price = data.price { fields.last = StreamQuoteFields.field(json, price) }
        if let time = data.time { fields.exchangeTime = json.millis(time) }
        let sequence = data.sequence
        // `sequence` grows with every change of the market's book and trades.
        if let sequence {
            guard let number = json.integer(sequence) else { return .dropped(.malformed) }
            fields.sequence = number
        }
        let prefix = 15  // "/market/ticker:"
        let symbol = UnsafeRawBufferPointer(rebasing: json.bytes[(topic.start + prefix)..<topic.end])
        return table.apply(fields, market: symbol)
    }

    /// The members of a message's `data` object that its topics read (level2: `symbol`, `sequenceStart`,
    /// `sequenceEnd`, `time` and `changes` with its `bids` and `asks`; ticker: `bestBid`, `bestAsk`, `price`,
    /// `time`, `sequence`), gathered as the frame's one walk passes them.
    struct DataFields {
        var symbol: JSONBytes.Value?
        var sequenceStart: JSONBytes.Value?
        var sequenceEnd: JSONBytes.Value?
        var time: JSONBytes.Value?
        var changes: JSONBytes.Value?
        var bids: JSONBytes.Value?
        var asks: JSONBytes.Value?
        var bestBid: JSONBytes.Value?
        var bestAsk: JSONBytes.Value?
        var price: JSONBytes.Value?
        var sequence: JSONBytes.Value?

        /// Reads the object at `index` (every value scanned: malformed input ends the walk); the index after
        /// it, or nil when malformed.
        mutating func read(_ json: JSONBytes, objectAt index: Int) -> Int? {
            json.walkMembers(ofObjectAt: index, depth: 1) { start, end, value in
                switch end - start {
                case 4:
                    if json.matches(start, end, "time") { time = value }
                case 5:
                    if json.matches(start, end, "price") { price = value }
                case 6:
                    if json.matches(start, end, "symbol") { symbol = value }
                case 7:
                    if json.matches(start, end, "changes") {
                        changes = value
                        if value.kind == .object { return .walked(readChanges(json, objectAt: value.start)) }
                    } else if json.matches(start, end, "bestBid") { bestBid = value } else if json.matches(start, end, "bestAsk") { bestAsk = value }
                case 8:
                    if json.matches(start, end, "sequence") { sequence = value }
                case 11:
                    if json.matches(start, end, "sequenceEnd") { sequenceEnd = value }
                case 13:
                    if json.matches(start, end, "sequenceStart") { sequenceStart = value }
                default:
                    break
                }
                return .next
            }
        }

        private mutating func readChanges(_ json: JSONBytes, objectAt index: Int) -> Int? {
            json.walkMembers(ofObjectAt: index, depth: 2) { start, end, value in
                if json.matches(start, end, "bids") { bids = value } else if json.matches(start, end, "asks") { asks = value }
                return .next
            }
        }
    }
}
