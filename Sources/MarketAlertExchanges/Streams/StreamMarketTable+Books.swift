import Foundation
import MarketAlertCore

/// Order books in the stream's market table (v3, `basis: depth`): a decoder writes a book's levels here as
/// the exchange sends them, with the exchange's integrity rule checked where it reads the frame; the table's
/// quote of the market then carries the book (`Quote.depth`) to the engine. Nothing is allocated per
/// message: levels go into each book's reserved storage.
extension StreamMarketTable {
    /// Whether the markets of this table keep books.
    package var keepsBooks: Bool { entries.first?.book != nil }

    /// Starts a full snapshot of entry `index`'s book (both sides emptied).
    package mutating func beginBookSnapshot(_ index: Int) {
        updateBook(index) { $0.beginSnapshot() }
    }

    /// Sets one level of entry `index`'s book (size 0 removes the level).
    package mutating func setBookLevel(_ index: Int, bid: Bool, price: Double, size: Double) {
        _ = updateBook(index) { $0.set(bid: bid, price: price, size: size) }
    }

    /// Ends a snapshot (`snapshot`) or a batch of changes of entry `index`'s book at the exchange's `time`:
    /// the market's best bid and ask follow the book, and the market counts as touched. Returns the fault
    /// when the book is refused (crossed, an invalid level): it is then out of sync until the next snapshot.
    @discardableResult
    package mutating func commitBook(_ index: Int, at time: Date, snapshot: Bool) -> OrderBook.Fault? {
        var fault: OrderBook.Fault?
        var best: (bid: Double?, ask: Double?) = (nil, nil)
        var synced = false
        updateBook(index) { book in
            fault = book.commit(at: time, snapshot: snapshot)
            best = book.bestPrices
            synced = book.isSynced
        }
        if synced {
            // The best prices as `Price`s only when they moved: making one from a Double allocates (its exact
            // decimal goes through text), and most book messages change sizes, not the top of the book.
            // Read in place: a copy of the entry would retain each of its references.
            let held = (bid: entries[index].bid, ask: entries[index].ask)
            let bid = held.bid?.value == best.bid ? held.bid : best.bid.flatMap { Price($0) }
            let ask = held.ask?.value == best.ask ? held.ask : best.ask.flatMap { Price($0) }
            clear(index, bid: bid == nil, ask: ask == nil)
            apply(index, bid: bid, ask: ask, exchangeTime: time)
        } else {
            apply(index, exchangeTime: time)  // an unsynced book is handed on too: the engine must stop using it
        }
        return fault
    }

    /// The exchange's integrity rule failed (a sequence gap, a checksum mismatch): entry `index`'s book is
    /// out of sync until the next snapshot, and the engine is told at once.
    package mutating func invalidateBook(_ index: Int) {
        updateBook(index) { $0.invalidate() }
        apply(index, exchangeTime: entries[index].exchangeTime)
    }

    /// Entry `index`'s book, read in place.
    package func book(_ index: Int) -> OrderBook? { entries[index].book }

    // MARK: Resync (a fresh snapshot, fetched or asked for by the transport)

    /// Entry `index`'s book needs a fresh snapshot: it is thrown away (out of sync, its sequence forgotten,
    /// diffs buffered for the old snapshot dropped), the engine is told, and the transport is asked, once
    /// until it takes the request, to rebuild it the exchange's way (`ExchangeStreamProtocol.bookResync`).
    /// `reason` nil: the first snapshot of a book that never had one (not a resync, not counted).
    package mutating func requestBookSnapshot(_ index: Int, reason: BookResyncReason?) {
        guard entries[index].book != nil else { return }
        if entries[index].book?.isSynced == true || reason != nil { invalidateBook(index) }
        // Asked for already: the diffs buffered since are kept for the snapshot on its way.
        guard !entries[index].bookRequested else { return }
        entries[index].bookSequence.reset()
        entries[index].bookBuffer.removeAll(keepingCapacity: true)
        entries[index].bookRequested = true
        bookRequests.append(BookSnapshotRequest(index: index, market: entries[index].market, reason: reason))
    }

    /// The requests recorded since the last call (the transport acts on each).
    package mutating func takeBookRequests() -> [BookSnapshotRequest] {
        guard !bookRequests.isEmpty else { return [] }
        let taken = bookRequests
        bookRequests.removeAll(keepingCapacity: true)
        return taken
    }

    /// The transport gave up on a request (its connection closed, the fetch failed for good): the next diff
    /// may ask again.
    package mutating func forgetBookRequest(_ index: Int) {
        entries[index].bookRequested = false
    }

    /// Applies the sequence rule of a diff stream to a diff of entry `index` covering updates `first...final`.
    package mutating func checkBookSequence(_ index: Int, first: UInt64, final: UInt64) -> BookSequence.Verdict {
        entries[index].bookSequence.check(first: first, final: final)
    }

    /// A snapshot whose last update is `id` seeds entry `index`'s book numbering (its request is answered).
    package mutating func seedBookSequence(_ index: Int, lastUpdate id: UInt64) {
        entries[index].bookSequence.snapshot(id)
        entries[index].bookRequested = false
    }

    /// Why entry `index`'s diff stream has a gap: the connection that brought its last change was replaced
    /// (changes were lost between the two), or a change was lost on the same connection.
    package func bookGapReason(_ index: Int) -> BookResyncReason {
        entries[index].bookConnection == connection ? .sequenceGap : .reconnect
    }

    /// A change of entry `index`'s book was applied from the current frame's connection.
    package mutating func noteBookChange(_ index: Int) {
        entries[index].bookConnection = connection
    }

    /// Keeps a diff of entry `index` until its snapshot arrives. At most `bookBufferLimit` bytes are kept per
    /// market: beyond, the oldest are dropped (the snapshot, fetched later, covers them).
    package mutating func bufferBookDiff(_ index: Int, _ frame: UnsafeRawBufferPointer) {
        guard entries[index].book != nil, frame.count < Self.bookBufferLimit else { return }
        if entries[index].bookBuffer.count + frame.count + 4 > Self.bookBufferLimit {
            entries[index].bookBuffer.removeAll(keepingCapacity: true)
        }
        let length = UInt32(frame.count)
        for shift in stride(from: 0, to: 32, by: 8) { entries[index].bookBuffer.append(UInt8(truncatingIfNeeded: length >> shift)) }
        entries[index].bookBuffer.append(contentsOf: frame)
    }

    /// Hands each buffered diff of entry `index` to `body`, oldest first, and empties the buffer (its storage
    /// is kept for the next resync).
    package mutating func replayBookDiffs(_ index: Int, _ body: (inout StreamMarketTable, UnsafeRawBufferPointer) -> Void) {
        var buffer: [UInt8] = []
        swap(&buffer, &entries[index].bookBuffer)
        buffer.withUnsafeBytes { bytes in
            var offset = 0
            while offset + 4 <= bytes.count {
                var length = 0
                for shift in 0..<4 { length |= Int(bytes[offset + shift]) << (8 * shift) }
                offset += 4
                guard offset + length <= bytes.count else { break }
                body(&self, UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + length]))
                offset += length
            }
        }
        buffer.removeAll(keepingCapacity: true)
        if entries[index].bookBuffer.isEmpty { swap(&buffer, &entries[index].bookBuffer) }
    }

    /// Sets every `[price, size]` level of a JSON array (Binance, Bybit, OKX shape) on one side of entry
    /// `index`'s book (size 0 removes a level). False when the array is not that shape.
    package mutating func setBookLevels(_ index: Int, _ json: JSONBytes, _ levels: JSONBytes.Value, bid: Bool) -> Bool {
        guard levels.kind == .array else { return false }
        var shapeOK = true
        // One scan per byte: each level is read where it is walked (`walkElements`, `pair`).
        let end = json.walkElements(ofArrayAt: levels.start) { level in
            guard level.kind == .array, let (price, size, levelEnd) = json.pair(level) else { shapeOK = false; return .stop }
            setBookLevel(index, bid: bid, price: json.quantity(price) ?? -1, size: json.quantity(size) ?? -1)
            return .walked(levelEnd)
        }
        return shapeOK && end != nil
    }

    /// Bytes of diffs kept per market while its snapshot is fetched: about 20 s of Binance's `depth@100ms` for
    /// a busy market (a snapshot normally arrives within a second), so 50 markets waiting on a REST API that
    /// does not answer hold at most 3.2 MB.
    package static let bookBufferLimit = 64 << 10
}

/// Why a book was thrown away and rebuilt (`marketalertd_book_resyncs_total{reason}`, `http-api.md` v3).
package enum BookResyncReason: String, Sendable, Equatable, CaseIterable {
    /// A diff is missing (its first update id does not follow the last one applied), or a diff left the
    /// book crossed (a change was lost).
    case sequenceGap = "sequence_gap"
    /// The exchange's checksum of the book disagrees with ours.
    case checksum
    /// The connection was replaced and the book could not be carried over.
    case reconnect
    /// The book stopped changing for longer than the stream's freshness window.
    case stale
}

/// A book the transport must rebuild: entry `index` of the table (market id `market`).
package struct BookSnapshotRequest: Sendable, Equatable {
    package var index: Int
    package var market: String
    /// Nil: the book's first snapshot, not a resync.
    package var reason: BookResyncReason?

    package init(index: Int, market: String, reason: BookResyncReason?) {
        self.index = index
        self.market = market
        self.reason = reason
    }
}
