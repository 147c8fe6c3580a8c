import Foundation

/// The order book of one market on one exchange, as far as a `basis: depth` rule needs it: the top levels of
/// both sides, whether it is in sync with the exchange, and the exchange's own time of its last change.
///
/// Integrity is each exchange's (sequence numbers, checksums; the exchange's stream decoder checks them);
/// the book itself refuses what no exchange may send: a non-positive or non-finite price or size, and a
/// crossed book (best bid at or above best ask). A refused book is not in sync: it yields no executable
/// price until a fresh snapshot replaces it.
package struct OrderBook: Sendable, Equatable {
    /// The book's state, behind one reference: a `Quote` carries its book inline, and every quote the engine
    /// copies (into the quote book, a candidate, an observation's two sides) would otherwise copy all of it.
    private var storage: Storage

    /// The best bid and ask prices, read in place (`bids` and `asks` hand out copies, two retains each).
    package var bestPrices: (bid: Double?, ask: Double?) { (storage.bids.best?.price, storage.asks.best?.price) }
    package var bids: BookSide { storage.bids }
    package var asks: BookSide { storage.asks }
    /// Levels a rule reads per side.
    package var levels: Int { storage.levels }
    /// In sync with the exchange: seeded by a snapshot and every change since applied in order.
    package var isSynced: Bool { storage.isSynced }
    /// The exchange's time of the last change (or the receive time when it publishes none).
    package var at: Date? { storage.at }

    /// Why a book stopped being usable.
    package enum Fault: String, Sendable, Equatable {
        case gap, checksum, crossed, invalidLevel = "invalid_level", stale
    }

    package init(levels: Int) {
        storage = Storage(levels: max(1, levels))
    }

    package static func == (lhs: OrderBook, rhs: OrderBook) -> Bool {
        lhs.storage === rhs.storage || lhs.storage.hasContents(of: rhs.storage)
    }

    /// Becomes a copy of `other`, in this book's own storage (no allocation when the level counts agree).
    package mutating func assign(from other: OrderBook) {
        guard other.storage !== storage else { return }
        guard other.levels == levels else {
            self = other
            return
        }
        unique()
        storage.bids.assign(from: other.storage.bids)
        storage.asks.assign(from: other.storage.asks)
        storage.isSynced = other.storage.isSynced
        storage.at = other.storage.at
        storage.refused = other.storage.refused
    }

    /// Runs `body` on this book (lets an optional book be changed in place: `book?.mutate { … }`).
    package mutating func mutate<T>(_ body: (inout OrderBook) -> T) -> T { body(&self) }

    /// Starts a snapshot: both sides emptied, not in sync until `endSnapshot`.
    package mutating func beginSnapshot() {
        unique()
        storage.bids.removeAll()
        storage.asks.removeAll()
        storage.isSynced = false
        storage.refused = nil
    }

    /// Starts a snapshot that keeps the levels the book holds, for a source whose levels mostly stay the same
    /// (a kept book published after each message): the caller cuts each side where it first differs
    /// (`keepFirst`) and appends the snapshot's levels from there (`append`); `commit` ends it as a snapshot.
    package mutating func beginSnapshotKeepingLevels() {
        unique()
        storage.isSynced = false
        storage.refused = nil
    }

    /// Keeps the best `count` levels of one side.
    package mutating func keepFirst(_ count: Int, bid: Bool) {
        unique()
        if bid { storage.bids.keepFirst(count) } else { storage.asks.keepFirst(count) }
    }

    /// Appends a level worse than every held one of its side (a snapshot handed over in order). A level that
    /// is not one (out of order, not positive and finite, beyond the capacity) marks the book out of sync.
    @discardableResult
    package mutating func append(bid: Bool, price: Double, size: Double) -> Fault? {
        unique()
        let ok = bid ? storage.bids.append(price: price, size: size) : storage.asks.append(price: price, size: size)
        if ok { return nil }
        storage.isSynced = false
        storage.refused = .invalidLevel
        return .invalidLevel
    }

    /// Sets one level (size 0 removes it). A level no exchange may send marks the book out of sync.
    @discardableResult
    package mutating func set(bid: Bool, price: Double, size: Double) -> Fault? {
        unique()
        let ok = bid ? storage.bids.set(price: price, size: size) : storage.asks.set(price: price, size: size)
        if ok { return nil }
        storage.isSynced = false
        storage.refused = .invalidLevel
        return .invalidLevel
    }

    /// Ends a snapshot or a batch of changes at `time`: a crossed book is refused. Returns the fault, if any.
    @discardableResult
    package mutating func commit(at time: Date, snapshot: Bool) -> Fault? {
        unique()
        storage.at = time
        if let fault = storage.refused {
            storage.refused = nil
            storage.isSynced = false
            return fault
        }
        if let bid = storage.bids.best?.price, let ask = storage.asks.best?.price, bid >= ask {
            storage.isSynced = false
            return .crossed
        }
        if snapshot { storage.isSynced = true }
        return nil
    }

    /// The exchange's stream lost a change (sequence gap, checksum mismatch): out of sync until a snapshot.
    package mutating func invalidate() {
        unique()
        storage.isSynced = false
    }

    /// Whether the book can price a trade at `now`: in sync, both sides present, not older than `maxAge`.
    package func isUsable(now: Date, maxAge: TimeInterval) -> Bool {
        guard isSynced, !bids.isEmpty, !asks.isEmpty, let at else { return false }
        return now.timeIntervalSince(at) <= maxAge
    }
}

extension OrderBook {
    /// Copies the storage when another book shares it: a book's storage is written only while it is this
    /// value's own (copy on write, as `Array` does).
    @inline(__always)
    private mutating func unique() {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    }

    /// `@unchecked Sendable`, and safe: `Storage` is private to this file, and `OrderBook` writes it only in
    /// its mutating methods, each after `unique()` has made this value the storage's only owner. A storage
    /// that two values (on two threads, say) can reach is therefore never written, only copied, like the
    /// buffer of an `Array`.
    ///
    /// Its fields are `@exclusivity(unchecked)`: a class's stored property is otherwise checked at run time on
    /// every access (a begin and an end call), which made a Kraken message that sets dozens of levels half again
    /// as slow. Exclusive access holds by construction: a storage is written only by the one `OrderBook` that
    /// owns it, inside its mutating methods, and `assign(from:)` reads another storage (`!==`) while writing
    /// its own.
    private final class Storage: @unchecked Sendable {
        @exclusivity(unchecked) var bids: BookSide
        @exclusivity(unchecked) var asks: BookSide
        let levels: Int
        @exclusivity(unchecked) var isSynced = false
        @exclusivity(unchecked) var at: Date?
        /// A level refused since the last commit: the commit refuses the whole snapshot or batch.
        @exclusivity(unchecked) var refused: Fault?

        init(levels: Int) {
            self.levels = levels
            bids = BookSide(.descending, capacity: levels * 2)
            asks = BookSide(.ascending, capacity: levels * 2)
        }

        private init(copying other: Storage) {
            levels = other.levels
            bids = other.bids
            asks = other.asks
            isSynced = other.isSynced
            at = other.at
            refused = other.refused
        }

        func copy() -> Storage { Storage(copying: self) }

        func hasContents(of other: Storage) -> Bool {
            levels == other.levels && isSynced == other.isSynced && at == other.at && refused == other.refused
                && bids == other.bids && asks == other.asks
        }
    }
}
