import Foundation
import MarketAlertCore

/// Coinbase Exchange's books (v3): its WebSocket `level2` channel needs an authenticated connection, so each
/// watched product's book is its REST `GET /products/<id>/book?level=2` (the whole aggregated book, no
/// authentication: `{"bids":[["price","size",num_orders],…],"asks":[…],"sequence":N,"auction_mode":false,
/// "auction":null,"time":"2026-…Z"}`, bids best first, asks best first), fetched by the stream transport
/// (`StreamBookResync.restSnapshot`) and polled again on a timer the public stream drives: each `heartbeat`
/// (one per product a second) or `ticker` of a product whose book is due asks for it anew. The book in use
/// stays in use meanwhile (a refresh is not a resync, and is not counted); when the stream is down nothing is
/// polled and the book ages out (`max_quote_age`).
///
/// While a product is in an auction (`auction_mode: true`) its book shows an indicative quote nobody can
/// trade against: the book is then unusable until a poll finds the auction over.
package enum CoinbaseBook {
    /// `/products/BTC-USD/book?level=2`.
    package static func path(_ product: String) -> String { "/products/\(product)/book?level=2" }

    /// How often each of `markets` books is polled: every 5 s, slower with many products so that books take
    /// at most 2.5 of Coinbase's 10 public requests a second per IP (50 products: every 20 s, inside the
    /// default 30 s `max_quote_age`).
    package static func interval(markets: Int) -> TimeInterval { max(5, 0.4 * Double(markets)) }

    /// Asks for entry `index`'s book when it never had one or its last request is `interval` old. The time of
    /// each market's last request is kept in the table's scratch memory (8 bytes a market, sized once).
    static func poll(_ index: Int, receivedAt: Date, into table: inout StreamMarketTable) {
        guard table.keepsBooks, !table.entries[index].bookRequested else { return }
        let count = table.entries.count
        if table.scratch.count != count * 8 { table.scratch = [UInt8](repeating: 0, count: count * 8) }
        let now = receivedAt.timeIntervalSince1970
        let last = table.scratch.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: index * 8, as: Double.self) }
        guard last == 0 || now - last >= interval(markets: count) || now < last else { return }
        table.scratch.withUnsafeMutableBytes { $0.storeBytes(of: now, toByteOffset: index * 8, as: Double.self) }
        table.requestBookRefresh(index)
    }

    /// Seeds entry `index`'s book from a `/book?level=2` answer. False when the answer is no usable book (the
    /// transport then asks again a second later).
    static func seed(_ body: UnsafeRawBufferPointer, at index: Int, into table: inout StreamMarketTable, receivedAt: Date) -> Bool {
        let json = JSONBytes(body)
        guard let root = json.rootObject() else { return false }
        var bids: JSONBytes.Value?
        var asks: JSONBytes.Value?
        var sequence: JSONBytes.Value?
        var time: JSONBytes.Value?
        var auction: JSONBytes.Value?
        json.members(ofObjectAt: root) { start, end, value in
            if json.matches(start, end, "bids") { bids = value }
            else if json.matches(start, end, "asks") { asks = value }
            else if json.matches(start, end, "sequence") { sequence = value }
            else if json.matches(start, end, "time") { time = value }
            else if json.matches(start, end, "auction_mode") { auction = value }
            return true
        }
        // `{"message":"NotFound"}` and other answers without a book.
        guard let bids, let asks, let number = sequence.flatMap(json.integer) else { return false }
        let at = time.flatMap { $0.kind == .string ? KrakenTime.date(json.slice($0)) : nil } ?? receivedAt
        table.beginBookSnapshot(index)
        guard table.setBookLevels(index, json, bids, bid: true), table.setBookLevels(index, json, asks, bid: false) else {
            table.invalidateBook(index)
            return false
        }
        if auction.flatMap(json.bool) == true {
            table.invalidateBook(index)  // an indicative auction quote: nothing to trade against
            table.seedBookSequence(index, lastUpdate: UInt64(number))
            return true
        }
        guard table.commitBook(index, at: at, snapshot: true) == nil else { return false }
        table.seedBookSequence(index, lastUpdate: UInt64(number))
        return true
    }
}

extension StreamMarketTable {
    /// A polled book (Coinbase's REST book) is asked for anew while the one it has stays in use: not a resync
    /// (`requestBookSnapshot` throws the book away first), so it is neither invalidated nor counted. The
    /// transport fetches it as it fetches a snapshot (`StreamBookResync.restSnapshot`); `seedBookSequence`
    /// answers the request.
    mutating func requestBookRefresh(_ index: Int) {
        guard entries[index].book != nil, !entries[index].bookRequested else { return }
        entries[index].bookRequested = true
        bookRequests.append(BookSnapshotRequest(index: index, market: entries[index].market, reason: nil))
    }
}
