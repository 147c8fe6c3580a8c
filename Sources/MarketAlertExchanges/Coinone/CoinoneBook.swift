import Foundation
import MarketAlertCore

/// Coinone v3 books (`keepingBooks`): channel `ORDERBOOK` beside `TICKER` for every market (one request each,
/// `{"request_type":"SUBSCRIBE","channel":"ORDERBOOK","topic":{"quote_currency":"KRW","target_currency":"BTC"}}`,
/// acknowledged `SUBSCRIBED` like the ticker). Coinone's docs: the last book is sent once on subscribing,
/// then the book again after every change; each push is the whole book,
/// `{"response_type":"DATA","channel":"ORDERBOOK","data":{"quote_currency":"KRW","target_currency":"BTC",
/// "timestamp":ms,"id":"…","asks":[{"price","qty"},…],"bids":[…]}}` (decimal strings; the docs' example lists
/// asks from the dearest down). `id` grows with every book ("the larger, the newer"): a push whose `id` is not
/// newer than the last one applied is late and dropped. There is no diff to lose, so no resync: a push that is
/// crossed or carries an unusable level leaves the book unusable until the next push replaces it. With books,
/// the market's best bid and ask follow the book; `TICKER` brings the last price.
extension CoinoneStream {
    package func keepingBooks(levels: Int) -> CoinoneStream? {
        var configured = self
        configured.bookLevels = max(1, levels)
        return configured
    }

    /// One `ORDERBOOK` push for the market of `data` (KRW markets only, as the ticker).
    static func orderbook(_ json: JSONBytes, data: JSONBytes.Value, receivedAt: Date, into table: inout StreamMarketTable) -> StreamFrame {
        var target: JSONBytes.Value?
        var quote: JSONBytes.Value?
        var id: JSONBytes.Value?
        var time: JSONBytes.Value?
        var asks: JSONBytes.Value?
        var bids: JSONBytes.Value?
        json.members(ofObjectAt: data.start) { start, end, value in
            if json.matches(start, end, "target_currency") { target = value }
            else if json.matches(start, end, "quote_currency") { quote = value }
            else if json.matches(start, end, "id") { id = value }
            else if json.matches(start, end, "timestamp") { time = value }
            else if json.matches(start, end, "asks") { asks = value }
            else if json.matches(start, end, "bids") { bids = value }
            return true
        }
        guard let target, target.kind == .string, let quote, quote.kind == .string, let number = id.flatMap(json.integer),
              let asks, asks.kind == .array, let bids, bids.kind == .array
        else { return .dropped(.malformed) }
        guard table.keepsBooks else { return .ignored }  // well-formed, but no book is kept (not subscribed)
        guard json.isString(quote, "KRW"), let index = table.index(of: json.slice(target)) else { return .unwatched }
        if let held = table.entries[index].bookSequence.last, UInt64(number) <= held { return .dropped(.outOfOrder) }
        table.seedBookSequence(index, lastUpdate: UInt64(number))
        table.beginBookSnapshot(index)
        guard side(json, asks, bid: false, index, into: &table), side(json, bids, bid: true, index, into: &table) else {
            table.invalidateBook(index)
            return .dropped(.malformed)
        }
        if let fault = table.commitBook(index, at: json.millis(time) ?? receivedAt, snapshot: true) {
            return .dropped(fault == .crossed ? .crossedBook : .invalidPrice)
        }
        return .data
    }

    /// Sets every `{"price","qty"}` level of one side. False when the list is not that shape.
    private static func side(_ json: JSONBytes, _ list: JSONBytes.Value, bid: Bool, _ index: Int, into table: inout StreamMarketTable) -> Bool {
        var shapeOK = true
        // One scan per byte (`walkElements`, `walkMembers`): each level is read where it is walked.
        let end = json.walkElements(ofArrayAt: list.start) { level in
            var price: JSONBytes.Value?
            var qty: JSONBytes.Value?
            let levelEnd = level.kind != .object ? nil : json.walkMembers(ofObjectAt: level.start) { start, end, field in
                // The first of each, as `member(_:ofObjectAt:)` reads them.
                if price == nil, json.matches(start, end, "price") { price = field }
                else if qty == nil, json.matches(start, end, "qty") { qty = field }
                return .next
            }
            guard let levelEnd, let price, let qty else { shapeOK = false; return .stop }
            // An unusable number makes the level invalid, which the commit refuses (the whole push).
            table.setBookLevel(index, bid: bid, price: json.quantity(price) ?? -1, size: json.quantity(qty) ?? -1)
            return .walked(levelEnd)
        }
        return shapeOK && end != nil
    }
}
