import Foundation

/// Premium history in memory (pure): per key (`premium/<rule>/<asset>`) the open slot's min / max / last pct
/// and notification count, the closed slots not yet published, and a `ContextRing` over the rule's
/// `context_window` for `premium.context`. Owned by `PremiumEvaluator`, which feeds it on every evaluation
/// by the index of the key in its plan (``observe(at:pct:now:)``: O(1), no hashing, no allocation once a key
/// has a slot); the engine publishes what ``flush(now:)`` returns, one batch per resolution interval.
///
/// The slot in progress outlives the process: a graceful stop writes it (``persistOpen()``) and the next start
/// restores it from the store (``restoreOpen(_:)``), so its min and max span the restart.
package struct PremiumHistory: Sendable {
    /// Seconds per slot; nil when the config has no `history:` (nothing is observed).
    package private(set) var resolution: Double?
    /// The keys the open slots are indexed by (the evaluator's plan keys, ``bind(to:)``) and the reverse.
    private(set) var boundKeys: [String] = []
    private var boundIndex: [String: Int] = [:]
    /// Per bound key (same index as `boundKeys`): its open slot.
    private(set) var open: [OpenSlot?] = []
    /// Open slots of keys outside the bound plan: restored from the store before the first evaluation, or
    /// observed by name (``observe(_:pct:now:)``). ``bind(to:)`` moves them in.
    private(set) var detachedOpen: [String: OpenSlot] = [:]
    /// Slots closed by an observation in a later slot, published at the next flush.
    var closed: [HistorySample] = []
    var rings: [String: ContextRing] = [:]
    /// Ring capacity per key (context_window / resolution).
    var capacities: [String: Int] = [:]
    /// `context_window` text per rule, e.g. `30d`.
    var windows: [String: String] = [:]
    /// When the earliest open slot ends: the engine's flush deadline.
    package private(set) var flushAt: Date?

    package init() {}

    /// Applies `history:` and the rules' `context_window` (at start and on reload). Without `history:` every
    /// slot and ring is dropped.
    package mutating func configure(_ settings: Settings) {
        guard let history = settings.history else {
            self = PremiumHistory()
            return
        }
        let seconds = history.resolution.seconds
        // A new resolution: the slots in progress close at the old one (published by the next flush, which is
        // due at once), and the rings start over at the new one with those slots in them; the engine's
        // runtime then merges the store's samples in (``mergeRings(from:)``).
        var carried: [HistorySample] = []
        if let old = resolution, old != seconds {
            for index in open.indices {
                if let slot = open[index], let sample = slot.sample(key: boundKeys[index], resolution: old) { carried.append(sample) }
                open[index] = nil
            }
            for (key, slot) in detachedOpen { if let sample = slot.sample(key: key, resolution: old) { carried.append(sample) } }
            detachedOpen = [:]
            closed += carried
        }
        if resolution != seconds {
            rings = [:]
            flushAt = closed.isEmpty ? nil : .distantPast
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
        for index in open.indices where capacities[boundKeys[index]] == nil { open[index] = nil }
        for key in detachedOpen.keys where capacities[key] == nil { detachedOpen[key] = nil }
        self.capacities = capacities
        for sample in carried { remember(sample, key: sample.key) }
    }

    /// Indexes the open slots by `keys` (the evaluator's plan keys, in its order). O(1) when they are already
    /// the bound ones (the same array storage, which holding it keeps from being reused); otherwise the open
    /// slots are carried over by key, and those of keys `keys` lacks wait detached.
    @inline(__always)
    package mutating func bind(to keys: [String]) {
        let same = keys.withUnsafeBufferPointer { new in
            boundKeys.withUnsafeBufferPointer { old in new.count == old.count && (new.count == 0 || new.baseAddress == old.baseAddress) }
        }
        if !same { rebind(keys) }
    }

    private mutating func rebind(_ keys: [String]) {
        for index in open.indices { if let slot = open[index] { detachedOpen[boundKeys[index]] = slot } }
        boundKeys = keys
        boundIndex = [:]
        boundIndex.reserveCapacity(keys.count)
        open = Array(repeating: nil, count: keys.count)
        for (index, key) in keys.enumerated() where boundIndex[key] == nil {
            boundIndex[key] = index
            open[index] = detachedOpen.removeValue(forKey: key)
        }
    }

    @inline(__always)
    func slot(_ date: Date, resolution: Double) -> Int64 { Int64((date.timeIntervalSince1970 / resolution).rounded(.down)) }

    /// Records one evaluated pct of the bound key at `index` (``bind(to:)``) at `now`: the hot path, called on
    /// every evaluation of every key. An index, not the key: no string is hashed or compared.
    @inline(__always)
    package mutating func observe(at index: Int, pct: Double, now: Date) {
        guard let resolution, pct.isFinite, index >= 0, index < open.count else { return }
        let slot = self.slot(now, resolution: resolution)
        if open[index]?.slot == slot {
            open[index]?.add(pct)
            return
        }
        let previous = open[index]
        open[index] = OpenSlot(slot: slot, pct: pct)
        began(slot, after: previous, key: boundKeys[index], resolution: resolution)
    }

    /// Records one pct of `key` by name (bench and tests; the evaluator uses ``observe(at:pct:now:)``).
    package mutating func observe(_ key: String, pct: Double, now: Date) {
        if let index = boundIndex[key] { return observe(at: index, pct: pct, now: now) }
        guard let resolution, pct.isFinite else { return }
        let slot = self.slot(now, resolution: resolution)
        if detachedOpen[key]?.slot == slot {
            detachedOpen[key]?.add(pct)
            return
        }
        let previous = detachedOpen[key]
        detachedOpen[key] = OpenSlot(slot: slot, pct: pct)
        began(slot, after: previous, key: key, resolution: resolution)
    }

    /// A key's new slot began: the one before it closes, and the flush is due at the earliest slot end.
    private mutating func began(_ slot: Int64, after previous: OpenSlot?, key: String, resolution: Double) {
        if let previous, slot > previous.slot { close(previous, key: key) }
        let end = Date(timeIntervalSince1970: Double(slot + 1) * resolution)
        if flushAt.map({ end < $0 }) ?? true { flushAt = end }
    }

    /// Counts a notification of `key` in its open slot.
    package mutating func noteNotification(_ key: String) {
        if let index = boundIndex[key] {
            open[index]?.notifications += 1
        } else {
            detachedOpen[key]?.notifications += 1
        }
    }

    /// The open slots as samples for a graceful stop to write (the store merges a slot written twice: min of
    /// the minima, max of the maxima, the later last, notifications added). Their notifications are counted
    /// as written: should the history go on, its flush adds only those counted after this.
    package mutating func persistOpen() -> [HistorySample] {
        let samples = openSamples()
        for index in open.indices { open[index]?.notifications = 0 }
        for key in detachedOpen.keys { detachedOpen[key]?.notifications = 0 }
        return samples
    }

    /// A stored sample of the slot in progress (a graceful stop wrote it, ``persistOpen()``) becomes the key's
    /// open slot again, merged with what is already open there. Its notifications stay counted in the store
    /// only, so the slot's flush (merged into the same row) does not count them twice. Other samples, and
    /// keys the configuration lacks, are ignored.
    package mutating func restoreOpen(_ sample: HistorySample, now: Date) {
        guard let resolution, sample.minPct.isFinite, sample.maxPct.isFinite, sample.lastPct.isFinite else { return }
        let slot = self.slot(sample.at, resolution: resolution)
        let key = sample.key
        guard slot == self.slot(now, resolution: resolution), capacities[key] != nil else { return }
        var restored = OpenSlot(slot: slot, pct: sample.lastPct)
        restored.minPct = min(sample.minPct, sample.lastPct)
        restored.maxPct = max(sample.maxPct, sample.lastPct)
        if let index = boundIndex[key] {
            open[index] = open[index].map { $0.merged(later: restored) } ?? restored
        } else {
            detachedOpen[key] = detachedOpen[key].map { $0.merged(later: restored) } ?? restored
        }
        let end = Date(timeIntervalSince1970: Double(slot + 1) * resolution)
        if flushAt.map({ end < $0 }) ?? true { flushAt = end }
    }

    /// Takes over `other`'s open slots (an HA takeover: the slots this standby observed stay when the store's
    /// history replaces its own), merged with those of the same slot here; nothing at another resolution.
    package mutating func mergeOpen(from other: PremiumHistory) {
        guard let resolution, other.resolution == resolution else { return }
        var theirs = other.detachedOpen
        for index in other.open.indices { if let slot = other.open[index] { theirs[other.boundKeys[index]] = slot } }
        for (key, slot) in theirs where capacities[key] != nil {
            if let index = boundIndex[key] {
                open[index] = open[index].map { $0.slot == slot.slot ? $0.merged(later: slot) : slot } ?? slot
            } else {
                detachedOpen[key] = detachedOpen[key].map { $0.slot == slot.slot ? $0.merged(later: slot) : slot } ?? slot
            }
            let end = Date(timeIntervalSince1970: Double(slot.slot + 1) * resolution)
            if flushAt.map({ end < $0 }) ?? true { flushAt = end }
        }
    }

    /// Merges rings rebuilt from the store (at this resolution) under the ones held: after a reload changed
    /// the resolution, the windows hold the stored history again, not only what closed since. Rings built at
    /// another resolution (a second reload meanwhile) are ignored.
    package mutating func mergeRings(from rebuilt: PremiumHistory) {
        guard let resolution, rebuilt.resolution == resolution else { return }
        for (key, ring) in rebuilt.rings {
            guard let capacity = capacities[key] else { continue }
            var merged = ring.capacity == capacity ? ring : ring.resized(to: capacity)
            if let held = rings[key] { merged.merge(held) }
            rings[key] = merged
        }
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
        func keep(_ slot: OpenSlot) -> Bool {
            guard slot.slot >= current else { return false }
            let end = Date(timeIntervalSince1970: Double(slot.slot + 1) * resolution)
            if next.map({ end < $0 }) ?? true { next = end }
            return true
        }
        for index in open.indices {
            guard let slot = open[index], !keep(slot) else { continue }
            close(slot, key: boundKeys[index])
            open[index] = nil
        }
        for (key, slot) in detachedOpen where !keep(slot) {
            close(slot, key: key)
            detachedOpen[key] = nil
        }
        let out = closed.sorted { ($0.at, $0.rule, $0.asset) < ($1.at, $1.rule, $1.asset) }
        closed = []
        flushAt = next
        return out
    }

    /// The open slots (for the digest: the period's last minutes are not closed yet).
    package func openSamples() -> [HistorySample] {
        guard let resolution else { return [] }
        var samples: [HistorySample] = []
        for index in open.indices {
            if let slot = open[index], let sample = slot.sample(key: boundKeys[index], resolution: resolution) { samples.append(sample) }
        }
        for (key, slot) in detachedOpen { if let sample = slot.sample(key: key, resolution: resolution) { samples.append(sample) } }
        return samples.sorted { ($0.at, $0.rule, $0.asset) < ($1.at, $1.rule, $1.asset) }
    }

    /// Loads stored samples (oldest first) into the context rings, at start.
    package mutating func warm(_ samples: [HistorySample]) {
        for sample in samples { remember(sample, key: sample.key) }
    }

    /// Loads one stored sample into its key's context ring (a fold over the store, oldest first).
    package mutating func warm(_ sample: HistorySample) { remember(sample, key: sample.key) }

    /// Drops the state of keys no longer configured.
    package mutating func retain(keys live: Set<String>) {
        for index in open.indices where !live.contains(boundKeys[index]) { open[index] = nil }
        for key in detachedOpen.keys where !live.contains(key) { detachedOpen[key] = nil }
        for key in rings.keys where !live.contains(key) { rings[key] = nil }
    }
}
