import Foundation
import MarketAlertCore

/// The `books` channel OKX v5 and Bitget v2 share: `{"arg":{"channel":"books","instId":…},"action":"snapshot"|"update",
/// "data":[{"asks":[[price,size,…],…],"bids":[…],"ts":"…","checksum":N,…}]}`, a snapshot (OKX: 400 levels;
/// Bitget: the whole book) on subscribing, then changes (size `"0"` removes a level). Every message carries
/// the CRC-32 of the book after it, over the top 25 levels interleaved `bid:ask` (`price:size` as sent,
/// joined by `:`), sent as a signed 32-bit integer; a mismatch makes the book unusable until a fresh
/// snapshot (a new subscription). Levels are kept as text (`TextBooks`) for that checksum.
package enum OKXStyleBooks {
    /// Levels the checksum covers, per side.
    package static let checksumDepth = 25

    /// Text levels kept per side for books `levels` deep: enough above the checksum's 25 that levels taken
    /// from the top are replaced by kept ones (OKX and Bitget never re-send a level that moves back up), at
    /// most OKX's 400. A side cut at this many that falls below 25 can no longer be verified (resync).
    package static func capacity(levels: Int) -> Int { min(400, max(100, 4 * levels)) }

    /// Applies one `books` message for `instrument` to the table's text books and, when its checksum holds,
    /// to the market's `OrderBook`.
    package static func apply(
        _ json: JSONBytes, _ data: JSONBytes.Value, snapshot: Bool, instrument: JSONBytes.Value, into table: inout StreamMarketTable
    ) -> StreamFrame {
        guard instrument.kind == .string, data.kind == .array else { return .dropped(.malformed) }
        guard let index = table.index(of: json.slice(instrument)) else { return .unwatched }
        guard let levels = table.book(index)?.levels else { return .ignored }
        var books = TextBooks.adopt(from: &table, capacity: capacity(levels: levels))
        defer { books.release(into: &table) }
        var outcome = StreamFrame.dropped(.malformed)
        // One scan per byte (`walkElements`, `walkMembers`): each row, side and level is read where it is walked.
        _ = json.walkElements(ofArrayAt: data.start) { row in
            guard row.kind == .object else { return .stop }
            let (result, end) = applyRow(json, row, index, snapshot: snapshot, books: &books, table: &table)
            outcome = result
            return .walked(end ?? json.value(at: row.start)?.1)  // the rows after an unusable one are applied too
        }
        return outcome
    }

    /// Applies one row; also returns the index after the row (nil: malformed, or a level unusable).
    private static func applyRow(
        _ json: JSONBytes, _ row: JSONBytes.Value, _ index: Int, snapshot: Bool, books: inout TextBooks, table: inout StreamMarketTable
    ) -> (StreamFrame, Int?) {
        if snapshot { books.beginSnapshot(index) } else if !books.isLive(index) { return (.ignored, json.value(at: row.start)?.1) }  // awaiting a snapshot
        var time: Date?
        var sent: Int64?
        var usable = true
        let rowEnd = json.walkMembers(ofObjectAt: row.start) { start, end, value in
            if json.matches(start, end, "asks") || json.matches(start, end, "bids") {
                let bid = json.matches(start, end, "bids")
                guard value.kind == .array else { usable = false; return .stop }
                return .walked(json.walkElements(ofArrayAt: value.start) { level in
                    guard let (price, size, levelEnd) = json.pair(level),
                          books.set(index, bid: bid, json, price: price, size: size, losesDropped: true)
                    else {
                        usable = false
                        return .stop
                    }
                    return .walked(levelEnd)
                })
            } else if json.matches(start, end, "ts") {
                time = json.millis(value)
            } else if json.matches(start, end, "checksum") {
                sent = json.checksum(value)
            }
            return .next
        }
        return (finish(index, snapshot: snapshot, usable: usable && rowEnd != nil, time: time, sent: sent, books: &books, table: &table), rowEnd)
    }

    /// Checks the checksum of the book after a row and publishes it.
    private static func finish(
        _ index: Int, snapshot: Bool, usable: Bool, time: Date?, sent: Int64?, books: inout TextBooks, table: inout StreamMarketTable
    ) -> StreamFrame {
        guard usable, let time else {
            books.fail(index)
            TextBooks.lost(index, in: &table, fault: .invalidLevel)
            return .dropped(.malformed)
        }
        // A snapshot is the exchange's whole book: its checksum is checked where it sends one (OKX always;
        // ccxt notes Bitget's v2 snapshots may come without, i.e. absent or 0). Every change must carry one.
        let unchecked = snapshot && (sent == nil || sent == 0)
        let verified = unchecked
            || (sent.map { CRC32.matches($0, books.interleavedChecksum(index, depth: checksumDepth)) } == true
                && books.verifiable(index, depth: checksumDepth))
        if !verified { books.fail(index) }
        if let fault = books.publish(index, into: &table, at: time, verified: verified) {
            if fault == .checksum { return .data }  // the engine hears at once that the book is unusable
            books.fail(index)
            TextBooks.lost(index, in: &table, fault: fault)  // a crossed book: a change was lost
            return .dropped(fault == .crossed ? .crossedBook : .invalidPrice)
        }
        return .data
    }
}
