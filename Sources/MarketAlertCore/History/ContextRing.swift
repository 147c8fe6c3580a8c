import Foundation

/// The last `capacity` history slots of one key, for `premium.context`: each slot's max pct as a 2-byte code
/// (0 = no sample) in a ring indexed by slot number, plus a monotonic queue for the exact window maximum.
///
/// Codes are `asinh`-scaled (fine near 0, a constant 0.05% of the value further out, ±1,000% range), so a
/// 30-day window at 1 minute (43,200 slots) is 86 KB per key, and a percentile or median is one linear
/// pass (tens of microseconds), not a sort.
struct ContextRing: Sendable {
    let capacity: Int
    private var codes: [UInt16]
    /// The newest slot the ring has been advanced to.
    private(set) var newest: Int64 = .min
    private(set) var count = 0
    /// (slot, exact max pct), values strictly decreasing from the front: the window maximum is the front.
    private var maxima: [(slot: Int64, pct: Double)] = []
    private var maximaHead = 0

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        codes = [UInt16](repeating: 0, count: self.capacity)
    }

    private static let unit = 0.001
    private static let scale = 32_766 / asinh(1000 / unit)

    static func code(_ pct: Double) -> UInt16 {
        guard pct.isFinite else { return pct > 0 ? 65_535 : 1 }
        let scaled = (32_768 + (asinh(pct / unit) * scale).rounded()).clamped(1, 65_535)
        return UInt16(scaled)
    }

    static func value(_ code: UInt16) -> Double { unit * sinh(Double(Int(code) - 32_768) / scale) }

    private func index(_ slot: Int64) -> Int { Int(((slot % Int64(capacity)) + Int64(capacity)) % Int64(capacity)) }

    /// Forgets the slots that fall out of a window ending at `slot` (inclusive).
    mutating func advance(to slot: Int64) {
        guard slot > newest else { return }
        if newest == .min || slot - newest >= Int64(capacity) {
            if count > 0 { for i in codes.indices { codes[i] = 0 } }
            count = 0
        } else {
            var s = newest + 1
            while s <= slot {
                let i = index(s)
                if codes[i] != 0 { codes[i] = 0; count -= 1 }
                s += 1
            }
        }
        newest = slot
        let oldest = slot - Int64(capacity)
        while maximaHead < maxima.count, maxima[maximaHead].slot <= oldest { maximaHead += 1 }
        if maximaHead > 64, maximaHead * 2 > maxima.count {
            maxima.removeFirst(maximaHead)
            maximaHead = 0
        }
    }

    /// Adds a closed slot's max pct (slots older than the window are ignored).
    mutating func insert(slot: Int64, maxPct: Double) {
        if slot > newest { advance(to: slot) }
        guard slot > newest - Int64(capacity) else { return }
        let i = index(slot)
        let code = Self.code(maxPct)
        if codes[i] == 0 { count += 1 } else if codes[i] > code { return }
        codes[i] = code
        // `maxima[maximaHead...]` is ordered by slot with strictly decreasing pct: an entry is dominated by any
        // later (or the same) slot holding at least its pct. Usually `slot` is the newest and this appends; a
        // merge (the store's samples under a reload's) may insert an older slot in the middle.
        var after = maxima.count  // the first entry at or after `slot`
        while after > maximaHead, maxima[after - 1].slot >= slot { after -= 1 }
        if after < maxima.count, maxima[after].pct >= maxPct { return }
        var end = after
        if end < maxima.count, maxima[end].slot == slot { end += 1 }  // the same slot, lower: replaced
        var begin = after
        while begin > maximaHead, maxima[begin - 1].pct <= maxPct { begin -= 1 }
        maxima.replaceSubrange(begin..<end, with: CollectionOfOne((slot: slot, pct: maxPct)))
    }

    /// Adds every slot `other` holds (its exact maxima where it has them), in any order relative to this
    /// ring's own: inserting keeps the higher pct per slot, so merging the same samples twice changes nothing.
    mutating func merge(_ other: ContextRing) {
        guard other.newest != .min, other.count > 0 else { return }
        var exact: [Int64: Double] = [:]
        for entry in other.maxima[other.maximaHead...] { exact[entry.slot] = entry.pct }
        var slot = other.newest - Int64(other.capacity) + 1
        while slot <= other.newest {
            let c = other.codes[other.index(slot)]
            if c != 0 { insert(slot: slot, maxPct: exact[slot] ?? Self.value(c)) }
            slot += 1
        }
    }

    var maximum: (slot: Int64, pct: Double)? { maximaHead < maxima.count ? maxima[maximaHead] : nil }

    /// Samples whose code is at or below `pct`'s.
    func countAtOrBelow(_ pct: Double) -> Int {
        let q = Self.code(pct)
        var n = 0
        codes.withUnsafeBufferPointer { buffer in
            for c in buffer where c &- 1 < q { n += 1 }  // code 0 (empty) wraps to 65,535 and never counts
        }
        return n
    }

    /// The lower median of the held samples (two counting passes over the ring, no sort).
    func median() -> Double? {
        guard count > 0 else { return nil }
        let rank = (count - 1) / 2
        var high = [Int](repeating: 0, count: 256)
        for c in codes where c != 0 { high[Int(c >> 8)] += 1 }
        var seen = 0
        var bucket = 0
        while bucket < 256, seen + high[bucket] <= rank { seen += high[bucket]; bucket += 1 }
        var low = [Int](repeating: 0, count: 256)
        for c in codes where c != 0 && Int(c >> 8) == bucket { low[Int(c & 0xFF)] += 1 }
        var byte = 0
        while byte < 256, seen + low[byte] <= rank { seen += low[byte]; byte += 1 }
        return Self.value(UInt16(bucket << 8 | min(byte, 255)))
    }

    /// The same samples in a ring of another size (a reload changed `context_window`): the newest are kept.
    func resized(to newCapacity: Int) -> ContextRing {
        var ring = ContextRing(capacity: newCapacity)
        guard newest != .min else { return ring }
        var exact: [Int64: Double] = [:]
        for entry in maxima[maximaHead...] { exact[entry.slot] = entry.pct }
        var slot = newest - Int64(min(capacity, newCapacity)) + 1
        while slot <= newest {
            let c = codes[index(slot)]
            if c != 0 { ring.insert(slot: slot, maxPct: exact[slot] ?? Self.value(c)) }
            slot += 1
        }
        ring.advance(to: newest)
        return ring
    }
}

extension Double {
    fileprivate func clamped(_ low: Double, _ high: Double) -> Double { Swift.min(Swift.max(self, low), high) }
}
