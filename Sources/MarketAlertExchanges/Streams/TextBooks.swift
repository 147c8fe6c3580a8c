import Foundation
import MarketAlertCore

/// The order books of a stream's markets with each level's price and size text exactly as the exchange sent
/// it, for the exchanges whose book checksum runs over that text (OKX, Bitget: `price:size` strings; Kraken:
/// the digits without the decimal point and leading zeros). A double cannot stand in for the text: `"0.10"`
/// and `"0.1"` are the same number and different checksums.
///
/// All books live in one byte arena (the table's `scratch`, sized once: nothing is allocated per message):
/// per market and side up to `capacity` levels, best first, each a 64-byte slot (price and size as doubles
/// for ordering and for the `OrderBook`, then both texts of at most `textCapacity` bytes). A decoder moves
/// the arena out of the table (`adopt`), changes levels, checks the checksum, publishes the top levels to
/// the market's `OrderBook` (`publish`) and moves it back (`release`).
///
/// A level beyond `capacity` is dropped. When `losesDropped` (an exchange that never re-sends a level that
/// moves back up, e.g. OKX's 400-level `books`), the side remembers it was cut; should it then fall below
/// the levels the checksum covers, the book cannot be verified any more and counts as failed.
package struct TextBooks: Sendable {
    package static let slotBytes = 64
    package static let textCapacity = 23
    private static let headerBytes = 8  // per market: bid count, ask count (UInt16 each), flags (UInt32)
    private static let priceTextOffset = 16
    private static let sizeTextOffset = 40

    package let markets: Int
    package let capacity: Int
    private(set) var arena: [UInt8]

    private struct Flags: OptionSet {
        let rawValue: UInt32
        /// No snapshot since the start or since the last failure: changes are not applied.
        static let awaitingSnapshot = Flags(rawValue: 1)
        static let bidsCut = Flags(rawValue: 2)
        static let asksCut = Flags(rawValue: 4)
    }

    /// Takes the table's scratch memory as the arena (sized on the first use for `markets` × 2 × `capacity`
    /// levels; every market awaits its snapshot then).
    package static func adopt(from table: inout StreamMarketTable, capacity: Int) -> TextBooks {
        var arena: [UInt8] = []
        swap(&arena, &table.scratch)
        return TextBooks(arena: arena, markets: table.entries.count, capacity: capacity)
    }

    /// Gives the arena back to the table.
    package mutating func release(into table: inout StreamMarketTable) {
        swap(&arena, &table.scratch)
    }

    private init(arena: [UInt8], markets: Int, capacity: Int) {
        self.markets = markets
        self.capacity = max(1, min(capacity, Int(UInt16.max)))
        let size = markets * (Self.headerBytes + 2 * self.capacity * Self.slotBytes)
        self.arena = arena
        if arena.count != size {
            self.arena = [UInt8](repeating: 0, count: size)
            for market in 0..<markets { setFlags(market, .awaitingSnapshot) }
        }
    }

    // MARK: Layout

    private func headerOffset(_ market: Int) -> Int { market * (Self.headerBytes + 2 * capacity * Self.slotBytes) }
    func slotOffset(_ market: Int, bid: Bool, _ level: Int) -> Int {
        headerOffset(market) + Self.headerBytes + ((bid ? 0 : capacity) + level) * Self.slotBytes
    }

    package func count(_ market: Int, bid: Bool) -> Int {
        Int(arena.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: headerOffset(market) + (bid ? 0 : 2), as: UInt16.self) })
    }

    private mutating func setCount(_ market: Int, bid: Bool, _ count: Int) {
        let offset = headerOffset(market) + (bid ? 0 : 2)
        arena.withUnsafeMutableBytes { $0.storeBytes(of: UInt16(count), toByteOffset: offset, as: UInt16.self) }
    }

    private func flags(_ market: Int) -> Flags {
        Flags(rawValue: arena.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: headerOffset(market) + 4, as: UInt32.self) })
    }

    private mutating func setFlags(_ market: Int, _ flags: Flags) {
        let offset = headerOffset(market) + 4
        arena.withUnsafeMutableBytes { $0.storeBytes(of: flags.rawValue, toByteOffset: offset, as: UInt32.self) }
    }

    // MARK: Changing levels

    /// Whether changes to `market` are applied (a snapshot since the start or the last failure).
    package func isLive(_ market: Int) -> Bool { !flags(market).contains(.awaitingSnapshot) }

    /// Starts a snapshot of `market`: both sides emptied, changes applied again.
    package mutating func beginSnapshot(_ market: Int) {
        setCount(market, bid: true, 0)
        setCount(market, bid: false, 0)
        setFlags(market, [])
    }

    /// The integrity rule failed (or a level was unusable): the market's changes are ignored until its next
    /// snapshot.
    package mutating func fail(_ market: Int) {
        setFlags(market, flags(market).union(.awaitingSnapshot))
    }

    /// Sets the level at `price` of `market` (size 0 removes it) with its texts as sent. False when the level
    /// is unusable (a price not positive and finite, a size not finite and non-negative, a text longer than
    /// `textCapacity`). `losesDropped`: a level cut off at `capacity` is gone for good (see the type's doc).
    @discardableResult
    package mutating func set(
        _ market: Int, bid: Bool, price: Double, size: Double, priceText: UnsafeRawBufferPointer, sizeText: UnsafeRawBufferPointer,
        losesDropped: Bool
    ) -> Bool {
        guard price.isFinite, price > 0, size.isFinite, size >= 0,
              priceText.count <= Self.textCapacity, sizeText.count <= Self.textCapacity
        else { return false }
        let count = count(market, bid: bid)
        let base = slotOffset(market, bid: bid, 0)
        let slot = Self.slotBytes
        var cut = false
        let capacity = capacity
        let newCount: Int = arena.withUnsafeMutableBytes { raw in
            // The first level whose price is not better than `price`.
            var low = 0
            var high = count
            while low < high {
                let mid = (low + high) / 2
                let held = raw.loadUnaligned(fromByteOffset: base + mid * slot, as: Double.self)
                if bid ? held > price : held < price { low = mid + 1 } else { high = mid }
            }
            let found = low < count && raw.loadUnaligned(fromByteOffset: base + low * slot, as: Double.self) == price
            guard let start = raw.baseAddress else { return count }
            if found, size == 0 {
                memmove(start + base + low * slot, start + base + (low + 1) * slot, (count - low - 1) * slot)
                return count - 1
            }
            if size == 0 { return count }
            if !found {
                guard low < capacity else {
                    cut = true
                    return count
                }
                let moving = min(count, capacity - 1) - low
                if moving > 0 { memmove(start + base + (low + 1) * slot, start + base + low * slot, moving * slot) }
                if count == capacity { cut = true }
            }
            let at = base + low * slot
            raw.storeBytes(of: price, toByteOffset: at, as: Double.self)
            raw.storeBytes(of: size, toByteOffset: at + 8, as: Double.self)
            Self.write(priceText, into: raw, at: at + Self.priceTextOffset)
            Self.write(sizeText, into: raw, at: at + Self.sizeTextOffset)
            return found ? count : min(count + 1, capacity)
        }
        setCount(market, bid: bid, newCount)
        if cut, losesDropped { setFlags(market, flags(market).union(bid ? .bidsCut : .asksCut)) }
        return true
    }

    private static func write(_ text: UnsafeRawBufferPointer, into raw: UnsafeMutableRawBufferPointer, at offset: Int) {
        raw[offset] = UInt8(text.count)
        guard let source = text.baseAddress, let target = raw.baseAddress, !text.isEmpty else { return }
        memcpy(target + offset + 1, source, text.count)
    }

    /// Keeps at most `depth` levels per side of `market` (Kraken: the book is cut to the subscribed depth
    /// after each message; a level that moves back into it is sent again).
    package mutating func truncate(_ market: Int, depth: Int) {
        for side in 0..<2 where count(market, bid: side == 0) > depth { setCount(market, bid: side == 0, depth) }
    }

    // MARK: Reading levels

    /// Level `level` of `market`'s side: price, size and both texts (valid during `body`).
    package func withLevel<T>(
        _ market: Int, bid: Bool, _ level: Int,
        _ body: (_ price: Double, _ size: Double, _ priceText: UnsafeRawBufferPointer, _ sizeText: UnsafeRawBufferPointer) -> T
    ) -> T {
        let at = slotOffset(market, bid: bid, level)
        return arena.withUnsafeBytes { raw in
            let price = raw.loadUnaligned(fromByteOffset: at, as: Double.self)
            let size = raw.loadUnaligned(fromByteOffset: at + 8, as: Double.self)
            let priceLength = Int(raw[at + Self.priceTextOffset])
            let sizeLength = Int(raw[at + Self.sizeTextOffset])
            let priceText = UnsafeRawBufferPointer(rebasing: raw[(at + Self.priceTextOffset + 1)..<(at + Self.priceTextOffset + 1 + priceLength)])
            let sizeText = UnsafeRawBufferPointer(rebasing: raw[(at + Self.sizeTextOffset + 1)..<(at + Self.sizeTextOffset + 1 + sizeLength)])
            return body(price, size, priceText, sizeText)
        }
    }

    /// Whether the top `depth` levels of both sides of `market` are known: a side cut at `capacity` that has
    /// fallen below `depth` levels may be missing levels the exchange counts in its checksum.
    package func verifiable(_ market: Int, depth: Int) -> Bool {
        let flags = flags(market)
        if flags.contains(.bidsCut), count(market, bid: true) < depth { return false }
        if flags.contains(.asksCut), count(market, bid: false) < depth { return false }
        return true
    }

}

extension TextBooks {
    /// Sets one level of `market` from a frame's `price` and `size` values (JSON strings or numbers, their
    /// text kept as sent). False for a level that is not two usable numbers.
    @discardableResult
    package mutating func set(
        _ market: Int, bid: Bool, _ json: JSONBytes, price: JSONBytes.Value, size: JSONBytes.Value, losesDropped: Bool
    ) -> Bool {
        guard price.kind == .string || price.kind == .number, size.kind == .string || size.kind == .number,
              let priceValue = json.quantity(price), let sizeValue = json.quantity(size)
        else { return false }
        return set(market, bid: bid, price: priceValue, size: sizeValue, priceText: json.slice(price), sizeText: json.slice(size), losesDropped: losesDropped)
    }
}

extension JSONBytes {
    /// A book checksum as sent: an integer, possibly negative (OKX, Bitget) or above `Int32.max` (Kraken),
    /// as a JSON number or string; nil for anything else.
    package func checksum(_ value: Value) -> Int64? {
        guard value.kind == .string || value.kind == .number, value.end > value.start else { return nil }
        let negative = bytes[value.start] == UInt8(ascii: "-")
        let digits = Value(start: value.start + (negative ? 1 : 0), end: value.end, kind: value.kind)
        guard digits.end - digits.start <= 10, let magnitude = integer(digits) else { return nil }
        return negative ? -magnitude : magnitude
    }
}
