import Foundation

/// The order book of one market on one exchange, as far as a `basis: depth` rule needs it: the top levels of
/// both sides, whether it is in sync with the exchange, and the exchange's own time of its last change.
///
/// Integrity is each exchange's (sequence numbers, checksums; the exchange's stream decoder checks them);
/// the book itself refuses what no exchange may send: a non-positive or non-finite price or size, and a
/// crossed book (best bid at or above best ask). A refused book is not in sync: it yields no executable
/// price until a fresh snapshot replaces it.
package struct OrderBook: Sendable, Equatable {
    package private(set) var bids: BookSide
    package private(set) var asks: BookSide
    /// Levels a rule reads per side.
    package let levels: Int
    /// In sync with the exchange: seeded by a snapshot and every change since applied in order.
    package private(set) var isSynced = false
    /// The exchange's time of the last change (or the receive time when it publishes none).
    package private(set) var at: Date?
    /// A level refused since the last commit: the commit refuses the whole snapshot or batch.
    private var refused: Fault?

    /// Why a book stopped being usable.
    package enum Fault: String, Sendable, Equatable {
        case gap, checksum, crossed, invalidLevel = "invalid_level", stale
    }

    package init(levels: Int) {
        self.levels = max(1, levels)
        bids = BookSide(.descending, capacity: self.levels * 2)
        asks = BookSide(.ascending, capacity: self.levels * 2)
    }

    /// Becomes a copy of `other`, in this book's own storage (no allocation when the level counts agree).
    package mutating func assign(from other: OrderBook) {
        guard other.levels == levels else {
            self = other
            return
        }
        bids.assign(from: other.bids)
        asks.assign(from: other.asks)
        isSynced = other.isSynced
        at = other.at
        refused = other.refused
    }

    /// Runs `body` on this book (lets an optional book be changed in place: `book?.mutate { … }`).
    package mutating func mutate<T>(_ body: (inout OrderBook) -> T) -> T { body(&self) }

    /// Starts a snapshot: both sides emptied, not in sync until `endSnapshot`.
    package mutating func beginSnapshot() {
        bids.removeAll()
        asks.removeAll()
        isSynced = false
        refused = nil
    }

    /// Starts a snapshot that keeps the levels the book holds, for a source whose levels mostly stay the same
    /// (a kept book published after each message): the caller cuts each side where it first differs
    /// (`keepFirst`) and appends the snapshot's levels from there (`append`); `commit` ends it as a snapshot.
    package mutating func beginSnapshotKeepingLevels() {
        isSynced = false
        refused = nil
    }

    /// Keeps the best `count` levels of one side.
    package mutating func keepFirst(_ count: Int, bid: Bool) {
        if bid { bids.keepFirst(count) } else { asks.keepFirst(count) }
    }

    /// Appends a level worse than every held one of its side (a snapshot handed over in order). A level that
    /// is not one (out of order, not positive and finite, beyond the capacity) marks the book out of sync.
    @discardableResult
    package mutating func append(bid: Bool, price: Double, size: Double) -> Fault? {
        let ok = bid ? bids.append(price: price, size: size) : asks.append(price: price, size: size)
        if ok { return nil }
        isSynced = false
        refused = .invalidLevel
        return .invalidLevel
    }

    /// Sets one level (size 0 removes it). A level no exchange may send marks the book out of sync.
    @discardableResult
    package mutating func set(bid: Bool, price: Double, size: Double) -> Fault? {
        let ok = bid ? bids.set(price: price, size: size) : asks.set(price: price, size: size)
        if ok { return nil }
        isSynced = false
        refused = .invalidLevel
        return .invalidLevel
    }

    /// Ends a snapshot or a batch of changes at `time`: a crossed book is refused. Returns the fault, if any.
    @discardableResult
    package mutating func commit(at time: Date, snapshot: Bool) -> Fault? {
        at = time
        if let fault = refused {
            refused = nil
            isSynced = false
            return fault
        }
        if let bid = bids.best?.price, let ask = asks.best?.price, bid >= ask {
            isSynced = false
            return .crossed
        }
        if snapshot { isSynced = true }
        return nil
    }

    /// The exchange's stream lost a change (sequence gap, checksum mismatch): out of sync until a snapshot.
    package mutating func invalidate() {
        isSynced = false
    }

    /// Whether the book can price a trade at `now`: in sync, both sides present, not older than `maxAge`.
    package func isUsable(now: Date, maxAge: TimeInterval) -> Bool {
        guard isSynced, !bids.isEmpty, !asks.isEmpty, let at else { return false }
        return now.timeIntervalSince(at) <= maxAge
    }
}
