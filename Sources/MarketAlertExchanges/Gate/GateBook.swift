import Foundation
import MarketAlertCore

/// Gate v3 books (`keepingBooks`): `spot.order_book_update` diffs, subscribed one pair a request with the
/// 100 ms interval (`"payload":["BTC_USDT","100ms"]`), take `spot.book_ticker`'s place (best bid and ask
/// follow the book). Each update is `{"channel":"spot.order_book_update","event":"update","result":{"t":ms,
/// "e":"depthUpdate","E":s,"s":"BTC_USDT","U":first,"u":last,"b":[[price,amount],…],"a":[…]}}` (amount `"0"`
/// removes a level). The book is seeded from REST, `GET /api/v4/spot/order_book?currency_pair=…&limit=100&
/// with_id=true` (`{"id":N,"current":ms,"update":ms,"asks":[…],"bids":[…]}`), with Gate's rule, Binance's up
/// to names (`BookSequence`): updates wait for the snapshot, those with `u <= id` are dropped, the first
/// applied has `U <= id + 1 <= u`, then each `U` is the previous `u + 1`; a gap throws the book away and a
/// fresh snapshot is fetched.
extension GateStream {
    package func keepingBooks(levels: Int) -> GateStream? {
        var configured = self
        configured.bookLevels = max(1, levels)
        return configured
    }

    /// Levels a REST snapshot asks for: Gate's most (100), at least the levels a book keeps (twice those read)
    /// for any realistic `depth_levels`.
    package static let snapshotLimit = 100

    package var bookResync: StreamBookResync {
        let limit = Self.snapshotLimit
        return .restSnapshot(path: { market in "/api/v4/spot/order_book?currency_pair=\(market)&limit=\(limit)&with_id=true" })
    }

    /// One `spot.order_book_update` request per pair (Gate's payload is one pair and an interval).
    func bookSubscription(_ pairs: [String], time: Int64) -> (messages: [String], acks: Set<String>, parts: [[String]]) {
        var messages: [String] = []
        var acks: Set<String> = []
        for pair in pairs {
            let id = Self.requestID(channel: Self.channels.count, pairs: [pair])
            messages.append(#"{"time":\#(time),"id":\#(id),"channel":"spot.order_book_update","event":"subscribe","payload":["\#(pair)","100ms"]}"#)
            acks.insert("id:\(id)")
        }
        return (messages, acks, pairs.map { [$0] })
    }

    /// The REST snapshot seeds entry `index`'s book; the updates buffered meanwhile are then applied by the
    /// sequence rule. False when the body is not a snapshot (an error body, a bad level, a crossed book).
    package func seedBook(_ body: UnsafeRawBufferPointer, at index: Int, into table: inout StreamMarketTable, receivedAt: Date) -> Bool {
        let json = JSONBytes(body)
        guard let root = json.rootObject() else { return false }
        var id: JSONBytes.Value?
        var current: JSONBytes.Value?
        var bids: JSONBytes.Value?
        var asks: JSONBytes.Value?
        json.members(ofObjectAt: root) { start, end, value in
            if json.matches(start, end, "id") { id = value }
            else if json.matches(start, end, "current") { current = value }
            else if json.matches(start, end, "bids") { bids = value }
            else if json.matches(start, end, "asks") { asks = value }
            return true
        }
        guard let lastUpdate = id.flatMap(json.integer), let bids, let asks else { return false }
        table.beginBookSnapshot(index)
        guard table.setBookLevels(index, json, bids, bid: true), table.setBookLevels(index, json, asks, bid: false) else {
            table.invalidateBook(index)
            return false
        }
        // `current`: when Gate answered; older snapshots carry none and are as of their receipt.
        guard table.commitBook(index, at: json.millis(current) ?? receivedAt, snapshot: true) == nil else { return false }
        table.seedBookSequence(index, lastUpdate: UInt64(lastUpdate))
        table.replayBookDiffs(index) { table, frame in _ = decode(frame, into: &table, receivedAt: receivedAt) }
        return true
    }

    /// A `spot.order_book_update` result: applied, buffered for the snapshot, skipped, or a gap.
    func bookUpdate(
        _ json: JSONBytes, _ fields: ResultFields, frame: UnsafeRawBufferPointer, receivedAt: Date, into table: inout StreamMarketTable
    ) -> StreamFrame {
        let time = fields.t
        guard let pair = fields.s, pair.kind == .string, let first = fields.U.flatMap(json.integer), let final = fields.u.flatMap(json.integer),
              final >= first, let bids = fields.b, let asks = fields.a
        else { return .dropped(.malformed) }
        guard table.keepsBooks else { return .ignored }  // well-formed, but no book is kept (not subscribed)
        guard let index = table.index(of: json.slice(pair)) else { return .unwatched }
        switch table.checkBookSequence(index, first: UInt64(first), final: UInt64(final)) {
        case .buffer:
            // No snapshot yet: ask for one (once) and keep the update for it.
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
            guard table.setBookLevels(index, json, bids, bid: true), table.setBookLevels(index, json, asks, bid: false) else {
                table.requestBookSnapshot(index, reason: .sequenceGap)
                return .dropped(.malformed)
            }
            if let fault = table.commitBook(index, at: json.millis(time) ?? receivedAt, snapshot: false) {
                // An update that crosses the book or sends an impossible level: a change was lost.
                table.requestBookSnapshot(index, reason: .sequenceGap)
                return .dropped(fault == .crossed ? .crossedBook : .invalidPrice)
            }
            table.noteBookChange(index)
            return .data
        }
    }
}

/// The members of an update's `result` object that Gate's channels read (order book updates: `s`, `U`, `u`,
/// `b`, `a`, `t`; book tickers: `s`, `b`, `a`, `t`, `u`; tickers: `currency_pair`, `last`), gathered as the
/// frame's one walk passes them.
struct ResultFields {
    var s: JSONBytes.Value?
    var U: JSONBytes.Value?
    var u: JSONBytes.Value?
    var b: JSONBytes.Value?
    var a: JSONBytes.Value?
    var t: JSONBytes.Value?
    var currencyPair: JSONBytes.Value?
    var last: JSONBytes.Value?

    /// Reads the object at `index` (every value scanned: malformed input ends the walk); the index after it,
    /// or nil when malformed.
    mutating func read(_ json: JSONBytes, objectAt index: Int) -> Int? {
        json.walkMembers(ofObjectAt: index, depth: 1) { start, end, value in
            switch end - start {
            case 1:
                switch json.bytes[start] {
                case UInt8(ascii: "s"): s = value
                case UInt8(ascii: "U"): U = value
                case UInt8(ascii: "u"): u = value
                case UInt8(ascii: "b"): b = value
                case UInt8(ascii: "a"): a = value
                case UInt8(ascii: "t"): t = value
                default: break
                }
            case 4:
                if json.matches(start, end, "last") { last = value }
            case 13:
                if json.matches(start, end, "currency_pair") { currencyPair = value }
            default:
                break
            }
            return .next
        }
    }
}
