import Foundation

/// One side of an order book: price levels best first (asks ascending, bids descending), at most `capacity`
/// of them, in storage reserved once. Applying a level or a whole snapshot allocates nothing after the
/// first fill: levels are inserted and removed in place within the reserved capacity.
///
/// It keeps `capacity` levels although a rule reads only `depth_levels` of them (`OrderBook` sets the
/// capacity to twice that): an exchange's diff stream changes levels anywhere, and a level beyond the kept
/// ones that moves up when better ones are taken would otherwise be missing until the next snapshot.
package struct BookSide: Sendable, Equatable {
    package enum Order: Sendable { case ascending, descending }

    package let order: Order
    package let capacity: Int
    package private(set) var prices: [Double] = []
    package private(set) var sizes: [Double] = []

    package init(_ order: Order, capacity: Int) {
        self.order = order
        self.capacity = max(1, capacity)
        prices.reserveCapacity(self.capacity + 1)
        sizes.reserveCapacity(self.capacity + 1)
    }

    package var count: Int { prices.count }
    package var isEmpty: Bool { prices.isEmpty }
    package var best: (price: Double, size: Double)? { prices.isEmpty ? nil : (prices[0], sizes[0]) }

    /// Whether `a` is a better price than `b` on this side.
    @inline(__always) func better(_ a: Double, _ b: Double) -> Bool { order == .ascending ? a < b : a > b }

    /// Sets the size at `price` (0 removes the level). False for a level that is not a positive, finite price
    /// or size (a data error: the caller throws the book away).
    @discardableResult
    package mutating func set(price: Double, size: Double) -> Bool {
        guard price.isFinite, price > 0, size.isFinite, size >= 0 else { return false }
        let low = firstIndex(notBetterThan: price)
        if low < prices.count, prices[low] == price {
            if size == 0 {
                prices.remove(at: low)
                sizes.remove(at: low)
            } else {
                sizes[low] = size
            }
            return true
        }
        guard size > 0, low < capacity else { return true }  // removing an unknown level, or beyond what is kept
        if low == prices.count {
            // After the worst level (a snapshot arrives best first): `insert` at the end takes the generic
            // `replaceSubrange`, several times slower than `append`.
            prices.append(price)
            sizes.append(size)
            return true
        }
        if prices.count < capacity {
            Self.insert(price, at: low, into: &prices)
            Self.insert(size, at: low, into: &sizes)
        } else {
            // Full: the worst level falls off the end as the new one goes in.
            Self.shift(price, at: low, into: &prices)
            Self.shift(size, at: low, into: &sizes)
        }
        return true
    }

    /// Binary search for the first index whose price is not better than `price` (over the raw buffer: the
    /// checked subscript's bounds tests were a fifth of applying a Binance diff).
    @inline(__always)
    private func firstIndex(notBetterThan price: Double) -> Int {
        let ascending = order == .ascending
        return prices.withUnsafeBufferPointer { held in
            var low = 0
            var high = held.count
            while low < high {
                let mid = (low + high) &>> 1
                let isBetter = ascending ? held[mid] < price : held[mid] > price
                if isBetter { low = mid + 1 } else { high = mid }
            }
            return low
        }
    }

    /// `Array.insert` goes through the generic `replaceSubrange`: appending and moving the tail up one by hand
    /// does the same in the reserved storage at a fraction of the cost.
    @inline(__always)
    private static func insert(_ value: Double, at index: Int, into array: inout [Double]) {
        array.append(value)
        shift(value, at: index, into: &array)
    }

    /// Moves elements `index..<count - 1` up one (the last one is overwritten) and puts `value` at `index`.
    @inline(__always)
    private static func shift(_ value: Double, at index: Int, into array: inout [Double]) {
        array.withUnsafeMutableBufferPointer { held in
            guard let base = held.baseAddress, index < held.count else { return }
            let moved = held.count - 1 - index
            if moved > 0 { memmove(base + index + 1, base + index, moved * MemoryLayout<Double>.stride) }  // overlapping
            base[index] = value
        }
    }

    /// Becomes a copy of `other`'s levels, in this side's own storage (no allocation when it fits).
    package mutating func assign(from other: BookSide) {
        guard other.capacity == capacity, other.order == order else {
            self = other
            return
        }
        prices.removeAll(keepingCapacity: true)
        sizes.removeAll(keepingCapacity: true)
        prices.append(contentsOf: other.prices)
        sizes.append(contentsOf: other.sizes)
    }

    /// Keeps the best `count` levels (the rest removed), storage kept.
    package mutating func keepFirst(_ count: Int) {
        guard count < prices.count else { return }
        prices.removeLast(prices.count - max(0, count))
        sizes.removeLast(sizes.count - max(0, count))
    }

    /// Adds a level worse than every held one, as a source that holds its levels in order hands them over
    /// (no search). False for a level `set` would refuse, and for one out of order or beyond `capacity`.
    @discardableResult
    package mutating func append(price: Double, size: Double) -> Bool {
        guard price.isFinite, price > 0, size.isFinite, size > 0, prices.count < capacity,
              prices.last.map({ better($0, price) }) ?? true
        else { return false }
        prices.append(price)
        sizes.append(size)
        return true
    }

    /// Empties the side, keeping its storage.
    package mutating func removeAll() {
        prices.removeAll(keepingCapacity: true)
        sizes.removeAll(keepingCapacity: true)
    }
}
