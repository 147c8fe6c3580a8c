import Foundation

/// One closed history slot of a premium key: the min, max and last pct seen in `[at, at + resolution)` and how
/// many notifications the key produced in it. `at` is the slot's start in UTC (slot = floor(t / resolution)).
package struct HistorySample: Sendable, Equatable, Codable {
    package var rule: String
    package var asset: String
    package var at: Date
    package var minPct: Double
    package var maxPct: Double
    package var lastPct: Double
    package var notifications: Int

    package init(rule: String, asset: String, at: Date, minPct: Double, maxPct: Double, lastPct: Double, notifications: Int = 0) {
        self.rule = rule
        self.asset = asset
        self.at = at
        self.minPct = minPct
        self.maxPct = maxPct
        self.lastPct = lastPct
        self.notifications = notifications
    }

    /// `premium/<rule>/<asset>`.
    package var key: String { PremiumEvents.key(rule: rule, asset: asset) }

    /// (rule, asset) of a `premium/<rule>/<asset>` key (rule names contain no `/`).
    package static func split(key: String) -> (rule: String, asset: String)? {
        guard key.hasPrefix("premium/") else { return nil }
        let rest = key.dropFirst("premium/".count)
        guard let slash = rest.firstIndex(of: "/") else { return nil }
        return (String(rest[..<slash]), String(rest[rest.index(after: slash)...]))
    }
}

/// The current slot of one key: O(1) to update, no allocation.
struct OpenSlot: Sendable {
    var slot: Int64
    var minPct: Double
    var maxPct: Double
    var lastPct: Double
    var notifications: Int = 0

    init(slot: Int64, pct: Double) {
        self.slot = slot
        minPct = pct
        maxPct = pct
        lastPct = pct
    }

    @inline(__always)
    mutating func add(_ pct: Double) {
        if pct < minPct { minPct = pct }
        if pct > maxPct { maxPct = pct }
        lastPct = pct
    }

    /// This slot with `later`'s values seen after it (the same slot): min of the minima, max of the maxima,
    /// `later`'s last, the notifications of both.
    func merged(later: OpenSlot) -> OpenSlot {
        var slot = self
        slot.minPct = min(minPct, later.minPct)
        slot.maxPct = max(maxPct, later.maxPct)
        slot.lastPct = later.lastPct
        slot.notifications += later.notifications
        return slot
    }

    func sample(key: String, resolution: Double) -> HistorySample? {
        guard let parts = HistorySample.split(key: key) else { return nil }
        return HistorySample(
            rule: parts.rule, asset: parts.asset, at: Date(timeIntervalSince1970: Double(slot) * resolution), minPct: minPct, maxPct: maxPct,
            lastPct: lastPct, notifications: notifications)
    }
}
