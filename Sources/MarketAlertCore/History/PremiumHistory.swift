import Foundation

/// Premium history in memory (pure): per key (`premium/<rule>/<asset>`) the open slot's min / max / last pct
/// and notification count, the closed slots not yet published, and a `ContextRing` over the rule's
/// `context_window` for `premium.context`. Owned by `PremiumEvaluator`, which feeds it on every evaluation
/// (``observe(_:pct:now:)`` is O(1) and allocates nothing once a key has a slot); the engine publishes what
/// ``flush(now:)`` returns, one batch per resolution interval.
package struct PremiumHistory: Sendable {
    /// Seconds per slot; nil when the config has no `history:` (nothing is observed).
    package private(set) var resolution: Double?
    var open: [String: OpenSlot] = [:]
    /// Slots closed by an observation in a later slot, published at the next flush.
    var closed: [HistorySample] = []
    var rings: [String: ContextRing] = [:]
    /// Ring capacity per key (context_window / resolution).
    var capacities: [String: Int] = [:]
    /// `context_window` text per rule, e.g. `30d`.
    var windows: [String: String] = [:]
    /// When the earliest open slot ends: the engine's flush deadline.
    package private(set) var flushAt: Date?
    /// When the engine last asked the store to prune samples past `retention`.
    var lastPrune: Date?

    package init() {}

    /// Applies `history:` and the rules' `context_window` (at start and on reload). Without `history:` every
    /// slot and ring is dropped.
    package mutating func configure(_ settings: Settings) {
        guard let history = settings.history else {
            self = PremiumHistory()
            return
        }
        let seconds = history.resolution.seconds
        if resolution != seconds {
            open = [:]
            closed = []
            rings = [:]
            flushAt = nil
        }
        resolution = seconds
        var capacities: [String: Int] = [:]
        windows = [:]
        for rule in settings.premium.rules {
            let window = rule.contextWindow(resolution: history.resolution)
            windows[rule.name] = DurationText.format(window)
            let capacity = min(HistorySettings.maximumSlots, Int((window.seconds / seconds).rounded(.up)))
            for asset in rule.assets { capacities[PremiumEvents.key(rule: rule.name, asset: asset)] = max(1, capacity) }
        }
        for (key, ring) in rings {
            guard let capacity = capacities[key] else { rings[key] = nil; continue }
            if ring.capacity != capacity { rings[key] = ring.resized(to: capacity) }
        }
        for key in open.keys where capacities[key] == nil { open[key] = nil }
        self.capacities = capacities
    }

    @inline(__always)
    func slot(_ date: Date, resolution: Double) -> Int64 { Int64((date.timeIntervalSince1970 / resolution).rounded(.down)) }

    /// Records one evaluated pct of `key` at `now` (the hot path: called on every evaluation of every key).
    @inline(__always)
    package mutating func observe(_ key: String, pct: Double, now: Date) {
        guard let resolution, pct.isFinite else { return }
        let slot = self.slot(now, resolution: resolution)
        if let index = open.index(forKey: key) {
            if open.values[index].slot == slot {
                open.values[index].add(pct)
                return
            }
            let previous = open.values[index]
            open.values[index] = OpenSlot(slot: slot, pct: pct)
            if slot > previous.slot { close(previous, key: key) }
        } else {
            open[key] = OpenSlot(slot: slot, pct: pct)
        }
        let end = Date(timeIntervalSince1970: Double(slot + 1) * resolution)
        if flushAt.map({ end < $0 }) ?? true { flushAt = end }
    }

    /// Counts a notification of `key` in its open slot.
    package mutating func noteNotification(_ key: String) {
        guard let index = open.index(forKey: key) else { return }
        open.values[index].notifications += 1
    }

    private mutating func close(_ slot: OpenSlot, key: String) {
        guard let resolution, let sample = slot.sample(key: key, resolution: resolution) else { return }
        closed.append(sample)
        remember(sample, key: key)
        if flushAt.map({ $0 > Date(timeIntervalSince1970: Double(slot.slot + 1) * resolution) }) ?? true {
            flushAt = Date(timeIntervalSince1970: Double(slot.slot + 1) * resolution)
        }
    }

    /// Adds a closed sample to its key's context ring.
    mutating func remember(_ sample: HistorySample, key: String) {
        guard let resolution, let capacity = capacities[key] else { return }
        let slot = self.slot(sample.at, resolution: resolution)
        if rings[key] == nil { rings[key] = ContextRing(capacity: capacity) }
        rings[key]?.insert(slot: slot, maxPct: sample.maxPct)
    }

    /// Closes every slot that ended by `now` and returns the closed samples not yet published (oldest first).
    package mutating func flush(now: Date) -> [HistorySample] {
        guard let resolution else { return [] }
        guard let due = flushAt, due <= now else { return [] }
        let current = slot(now, resolution: resolution)
        var next: Date?
        for index in open.indices {
            let (key, slot) = open[index]
            if slot.slot < current {
                close(slot, key: key)
            } else {
                let end = Date(timeIntervalSince1970: Double(slot.slot + 1) * resolution)
                if next.map({ end < $0 }) ?? true { next = end }
            }
        }
        open = open.filter { $0.value.slot >= current }
        let out = closed.sorted { ($0.at, $0.rule, $0.asset) < ($1.at, $1.rule, $1.asset) }
        closed = []
        flushAt = next
        return out
    }

    /// The open slots (for the digest: the period's last minutes are not closed yet).
    package func openSamples() -> [HistorySample] {
        guard let resolution else { return [] }
        return open.compactMap { $0.value.sample(key: $0.key, resolution: resolution) }
    }

    /// Loads stored samples (oldest first) into the context rings, at start.
    package mutating func warm(_ samples: [HistorySample]) {
        for sample in samples { remember(sample, key: sample.key) }
    }

    /// Drops the state of keys no longer configured.
    package mutating func retain(keys live: Set<String>) {
        for key in open.keys where !live.contains(key) { open[key] = nil }
        for key in rings.keys where !live.contains(key) { rings[key] = nil }
    }
}
