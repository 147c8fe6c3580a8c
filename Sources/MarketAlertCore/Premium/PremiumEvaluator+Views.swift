import Foundation

/// The String-keyed views of the evaluator's slot arrays (the status page, the API, `once`, the status
/// line, the metrics scrape). A `last`/`mid` key's observation is made here, from the book the evaluation read.
extension PremiumEvaluator {
    /// Every key's alert state (built on each call: use `state(forKey:)` for one key).
    package var states: [String: LeveledAlertStateMachine] {
        var all = detachedStates
        for (slot, state) in slotStates.enumerated() { if let state { all[plan.keys[slot]] = state } }
        return all
    }

    /// The latest observation per key (nil when too few prices), from `book` (the book the evaluations read),
    /// for `once` and the status line (built on each call: use `observation(forKey:in:)` for one key).
    package func latest(in book: QuoteBook) -> [String: PremiumObservation] {
        var all = detachedLatest.compactMapValues { $0.observation(in: book) }
        for slot in plan.keys.indices {
            if let observation = latestObservation(slot: slot, in: book) { all[plan.keys[slot]] = observation }
        }
        return all
    }

    /// Key slot `slot`'s latest observation, made from `book`.
    func latestObservation(slot: Int, in book: QuoteBook) -> PremiumObservation? {
        if let sides = slotSides[slot] { return sides.observation(in: book) }
        return slotLatest[slot]
    }

    /// Key slot `slot`'s latest pct.
    func latestPct(slot: Int) -> Double? { slotSides[slot]?.pct ?? slotLatest[slot]?.pct }

    package func state(forKey key: String) -> LeveledAlertStateMachine? {
        if let slot = plan.index[key] { return slotStates[slot] }
        return detachedStates[key]
    }

    /// The latest pct of `key`, and whether it is an executable trade's, without making its observation.
    package func latestGauge(forKey key: String) -> (pct: Double, executable: Bool)? {
        if let slot = plan.index[key] {
            if let sides = slotSides[slot] { return (sides.pct, false) }
            return slotLatest[slot].map { ($0.pct, $0.executable != nil) }
        }
        switch detachedLatest[key] {
        case .sides(let sides)?: return (sides.pct, false)
        case .full(let observation)?: return (observation.pct, observation.executable != nil)
        case nil: return nil
        }
    }

    /// The latest observation of `key`, made from `book` (the book the evaluations read).
    package func observation(forKey key: String, in book: QuoteBook) -> PremiumObservation? {
        if let slot = plan.index[key] { return latestObservation(slot: slot, in: book) }
        return detachedLatest[key]?.observation(in: book)
    }

    /// Every key firing now (unsorted), without building the `states` dictionary.
    package func firingKeys() -> [String] {
        var keys = detachedStates.filter(\.value.isFiring).map(\.key)
        for (slot, state) in slotStates.enumerated() where state?.isFiring == true { keys.append(plan.keys[slot]) }
        return keys
    }

    /// The asset and pct of the highest premium (the first such key, in rule and asset order) whose quotes
    /// `book` (the book the evaluations read) still holds: the status line's "max premium". Its observation is
    /// not made: the line is refreshed every second, and a `mid` side's price is a `Decimal` division, which
    /// allocated about 150 times a second in a streaming daemon (more than everything else it does).
    package func highestPremium(in book: QuoteBook) -> (asset: String, pct: Double)? {
        var best: Int?
        var bestPct = -Double.infinity
        for slot in plan.keys.indices {
            guard let pct = latestPct(slot: slot) else { continue }
            if best == nil || pct > bestPct {
                best = slot
                bestPct = pct
            }
        }
        var top = best.flatMap { slot -> (asset: String, pct: Double)? in
            if let sides = slotSides[slot] { return sides.isPriced(in: book) ? (sides.asset, sides.pct) : nil }
            return slotLatest[slot].map { ($0.asset, $0.pct) }
        }
        for latest in detachedLatest.values where top.map({ latest.pct > $0.pct }) ?? true {
            switch latest {
            case .sides(let sides): if sides.isPriced(in: book) { top = (sides.asset, sides.pct) }
            case .full(let observation): top = (observation.asset, observation.pct)
            }
        }
        return top
    }
}
