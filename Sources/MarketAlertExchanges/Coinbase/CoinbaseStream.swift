import Foundation
import MarketAlertCore
import MarketAlertKit

/// Coinbase Exchange market data feed (`wss://ws-feed.exchange.coinbase.com`), channels `ticker` (last
/// trade price with the best bid and ask at that moment) and `heartbeat` (one per product per second, the
/// keepalive) for every watched product in one
/// `{"type":"subscribe","product_ids":[…],"channels":["ticker","heartbeat"]}`. Coinbase answers with one
/// `{"type":"subscriptions","channels":[{"name":…,"product_ids":[…]},…]}` listing everything it
/// subscribed: a product missing from it is a partial ack. Errors: `{"type":"error","message":…,"reason":…}`.
///
/// v3 books (`keepingBooks`): the REST `/products/<id>/book?level=2` of each product, polled on the stream's
/// heartbeats (`CoinbaseBook`); the subscription is unchanged.
package struct CoinbaseStream: ExchangeStreamProtocol {
    /// v3: whether each product's book is kept (its levels are the table's).
    package private(set) var keepsBooks = false

    package init() {}

    package func keepingBooks(levels: Int) -> CoinbaseStream? {
        var configured = self
        configured.keepsBooks = true
        return configured
    }

    package var bookResync: StreamBookResync { .restSnapshot(path: CoinbaseBook.path) }

    package func seedBook(_ body: UnsafeRawBufferPointer, at index: Int, into table: inout StreamMarketTable, receivedAt: Date) -> Bool {
        CoinbaseBook.seed(body, at: index, into: &table, receivedAt: receivedAt)
    }

    /// Coinbase limits subscriptions per product and channel per account (10), not channels per connection
    /// (docs.cdp.coinbase.com/exchange/websocket-feed/rate-limits): `maxMarketsPerConnection` stays nil.
    package var exchange: ExchangeID { .coinbase }
    package var keepalive: StreamKeepalive { .serverDriven(window: .seconds(10)) }

    package func marketID(_ pair: MarketPair) -> String { CoinbaseTickerSource.productID(pair) }

    package func subscription(for markets: [String]) -> StreamSubscription {
        let products = markets.map { "\"\($0)\"" }.joined(separator: ",")
        return StreamSubscription(
            messages: ["{\"type\":\"subscribe\",\"product_ids\":[\(products)],\"channels\":[\"ticker\",\"heartbeat\"]}"],
            acks: Set(markets.flatMap { ["ticker:\($0)", "heartbeat:\($0)"] }),
            // "Failed to subscribe … is not a valid product": the whole request is refused.
            refusesWholeMessage: true, parts: [markets])
    }

    package func decode(_ frame: UnsafeRawBufferPointer, into table: inout StreamMarketTable, receivedAt: Date) -> StreamFrame {
        let json = JSONBytes(frame)
        var type: JSONBytes.Value?
        var product: JSONBytes.Value?
        var fields = StreamQuoteFields()
        var channels: JSONBytes.Value?
        var message: JSONBytes.Value?
        var reason: JSONBytes.Value?
        var sequence: JSONBytes.Value?
        let whole = json.rootMembers { start, end, value in
            if json.matches(start, end, "type") { type = value }
            else if json.matches(start, end, "product_id") { product = value }
            else if json.matches(start, end, "price") { fields.last = StreamQuoteFields.field(json, value) }
            else if json.matches(start, end, "best_bid") { fields.bid = StreamQuoteFields.field(json, value) }
            else if json.matches(start, end, "best_ask") { fields.ask = StreamQuoteFields.field(json, value) }
            else if json.matches(start, end, "channels") { channels = value }
            else if json.matches(start, end, "message") { message = value }
            else if json.matches(start, end, "reason") { reason = value }
            else if json.matches(start, end, "sequence") { sequence = value }
            return true
        }
        guard whole else { return .dropped(.malformed) }
        guard let type, type.kind == .string else { return .dropped(.unknownMessage) }
        if json.isString(type, "ticker") {
            guard let product, product.kind == .string else { return .dropped(.malformed) }
            // `sequence` grows per product: a ticker with an older one is late or repeated.
            if let sequence {
                guard let number = json.integer(sequence) else { return .dropped(.malformed) }
                fields.sequence = number
            }
            if keepsBooks { pollBook(json, product, receivedAt: receivedAt, into: &table) }
            return table.apply(fields, market: json.slice(product))
        }
        if json.isString(type, "heartbeat") {
            if keepsBooks, let product, product.kind == .string { pollBook(json, product, receivedAt: receivedAt, into: &table) }
            return .heartbeat
        }
        if json.isString(type, "subscriptions") {
            guard let channels, channels.kind == .array else { return .dropped(.malformed) }
            return .acked(keys: Self.subscribed(json, channels), complete: true)
        }
        if json.isString(type, "error") {
            let text = [message, reason].compactMap { $0.map(json.string) }.joined(separator: ": ")
            // "XYZ-USD is not a valid product": Coinbase refuses the whole subscribe for one unknown product.
            let missing = text.contains("not a valid product") ? StreamRefusal.candidates(in: text) : []
            return .rejected(reason: text.isEmpty ? "error" : text, markets: missing)
        }
        return .ignored
    }

    /// Asks for `product`'s REST book when it is due.
    private func pollBook(_ json: JSONBytes, _ product: JSONBytes.Value, receivedAt: Date, into table: inout StreamMarketTable) {
        guard let index = table.index(of: json.slice(product)) else { return }
        CoinbaseBook.poll(index, receivedAt: receivedAt, into: &table)
    }

    /// `channel:product` for every product of every channel in a `subscriptions` message.
    private static func subscribed(_ json: JSONBytes, _ channels: JSONBytes.Value) -> [String] {
        var keys: [String] = []
        json.elements(ofArrayAt: channels.start) { channel in
            guard channel.kind == .object, let name = json.member("name", ofObjectAt: channel.start),
                  let products = json.member("product_ids", ofObjectAt: channel.start), products.kind == .array
            else { return true }
            json.elements(ofArrayAt: products.start) { product in
                keys.append("\(json.string(name)):\(json.string(product))")
                return true
            }
            return true
        }
        return keys
    }
}
