import Foundation

/// One state change of a premium alert key, with the observation that caused it.
package struct PremiumDecision: Sendable, Equatable {
    package var rule: PremiumRule
    package var key: String
    package var observation: PremiumObservation?
    package var action: LeveledAlertStateMachine.Action
    /// The key's state after the decision (persist it when `stateChanged`).
    package var state: LeveledAlertStateMachine
    package var stateChanged: Bool
}

/// Evaluates every premium rule × asset against a quote book. Owns the alert state of each key; a pure
/// value that the supervisor holds and persists.
///
/// The rules are compiled into a `PremiumPlan` when they change; each key's state and latest observation
/// live in arrays indexed by the plan's key slots, so an evaluation hashes no string. The String-keyed
/// views (`states`, `latest`, `state(forKey:)`, `observation(forKey:)`) are derived from those arrays.
package struct PremiumEvaluator: Sendable {
    private var plan = PremiumPlan(rules: [])
    /// Per plan key: its state machine and latest observation (nil: none yet / too few prices).
    private var slotStates: [LeveledAlertStateMachine?] = []
    private var slotLatest: [PremiumObservation?] = []
    /// States (and observations) of keys outside the plan: restored before the first evaluation, or of a
    /// rule or asset that a reload removed, until `retain` forgets them.
    private var detachedStates: [String: LeveledAlertStateMachine] = [:]
    private var detachedLatest: [String: PremiumObservation] = [:]
    /// Per plan currency: its conversion into the reference currency for the current evaluation.
    private var conversions: [ReferenceConversion?] = []
    /// The converter `conversions` were computed with (nil: not computed for this plan).
    private var conversionsFrom: ConverterIdentity?
    private var scratch: [BidAskCandidate] = []
    /// Keys whose premium is above their rule's `max_plausible_pct` now: bad data, not a premium. Their state
    /// machines see no value (nothing fires or resolves on it).
    package private(set) var implausible: [String: PremiumObservation] = [:]

    /// Premium history: min / max / last pct per slot and the context rings (`History/PremiumHistory.swift`).
    package var history = PremiumHistory()

    package init(states: [String: LeveledAlertStateMachine] = [:]) { detachedStates = states }

    /// Every key's alert state (built on each call: use `state(forKey:)` for one key).
    package var states: [String: LeveledAlertStateMachine] {
        var all = detachedStates
        for (slot, state) in slotStates.enumerated() { if let state { all[plan.keys[slot]] = state } }
        return all
    }

    /// The latest observation per key (nil when too few prices), for `once` and the status line (built on
    /// each call: use `observation(forKey:)` for one key).
    package var latest: [String: PremiumObservation] {
        var all = detachedLatest
        for (slot, observation) in slotLatest.enumerated() { if let observation { all[plan.keys[slot]] = observation } }
        return all
    }

    package func state(forKey key: String) -> LeveledAlertStateMachine? {
        if let slot = plan.index[key] { return slotStates[slot] }
        return detachedStates[key]
    }

    package func observation(forKey key: String) -> PremiumObservation? {
        if let slot = plan.index[key] { return slotLatest[slot] }
        return detachedLatest[key]
    }

    /// Compiles `rules` when they differ from the plan's, carrying every key's state and observation over.
    private mutating func prepare(_ rules: [PremiumRule]) {
        guard !plan.compiles(rules) else { return }
        for (slot, key) in plan.keys.enumerated() {
            if let state = slotStates[slot] { detachedStates[key] = state }
            if let observation = slotLatest[slot] { detachedLatest[key] = observation }
        }
        plan = PremiumPlan(rules: rules)
        slotStates = plan.keys.map { detachedStates.removeValue(forKey: $0) }
        slotLatest = plan.keys.map { detachedLatest.removeValue(forKey: $0) }
        conversions = Array(repeating: nil, count: plan.currencies.count)
        conversionsFrom = nil
    }

    /// Evaluates the rules (or only those involving `exchange`, when given; only those `include` admits) at
    /// `now`.
    package mutating func evaluate(
        settings: PremiumSettings, book: QuoteBook, converter: CurrencyConverter, now: Date,
        onlyInvolving exchange: ExchangeID? = nil, assets filter: AssetFilter = .all,
        including include: (PremiumRule) -> Bool = { _ in true }
    ) -> [PremiumDecision] {
        prepare(settings.rules)
        plan.resolve(in: book)
        // Once per converter (it changes with the FX selection), not per evaluation of a stream quote.
        if conversionsFrom !== converter.identity {
            for (index, currency) in plan.currencies.enumerated() { conversions[index] = converter.toReference(1, currency: currency) }
            conversionsFrom = converter.identity
        }
        let oldest = now.addingTimeInterval(-settings.maxQuoteAge.seconds)
        var decisions: [PremiumDecision] = []
        for ruleIndex in plan.rules.indices {
            if let exchange, !plan.rules[ruleIndex].rule.exchanges.contains(exchange) { continue }
            let rule = plan.rules[ruleIndex].rule
            guard include(rule) else { continue }
            for entry in plan.rules[ruleIndex].entries {
                guard filter.contains(plan.entries[entry].asset) else { continue }
                let slot = plan.entries[entry].key  // the key is `plan.keys[slot]`
                var observation = plan.observe(
                    entry: entry, rule: ruleIndex, book: book, conversions: conversions, oldest: oldest, scratch: &scratch)
                var pct = observation?.pct
                if let seen = pct, seen > rule.maxPlausiblePct {
                    implausible[plan.keys[slot]] = observation
                    observation = nil
                    pct = nil
                } else if !implausible.isEmpty {
                    implausible[plan.keys[slot]] = nil
                }
                if let pct { history.observe(plan.keys[slot], pct: pct, now: now) }
                var state = slotStates[slot] ?? LeveledAlertStateMachine()
                let before = state.phase
                let action = state.observe(pct, now: now, policy: plan.rules[ruleIndex].policy)
                let changed = state.phase != before
                slotStates[slot] = state
                if action != .none || changed {
                    decisions.append(PremiumDecision(
                        rule: rule, key: plan.keys[slot], observation: observation, action: action, state: state, stateChanged: changed))
                }
                slotLatest[slot] = observation
            }
        }
        return decisions
    }

    /// Forgets keys of rules or assets that are no longer configured (after a reload).
    package mutating func retain(settings: PremiumSettings) -> [String] {
        prepare(settings.rules)
        let gone = Array(detachedStates.keys)
        detachedStates = [:]
        detachedLatest = [:]
        for key in implausible.keys where plan.index[key] == nil { implausible[key] = nil }
        return gone
    }

    /// The earliest time at which a `for` or `repeat_interval` falls due.
    package func nextDeadline(settings: PremiumSettings) -> Date? {
        var earliest: Date?
        func consider(_ deadline: Date?) {
            guard let deadline else { return }
            if earliest.map({ deadline < $0 }) ?? true { earliest = deadline }
        }
        if plan.compiles(settings.rules) {
            // By index: iterating `plan.rules` by value copied each compiled rule (its rule's arrays, sets and
            // strings retained and released) on every call, and the engine loop asks after every input.
            for ruleIndex in plan.rules.indices {
                for entry in plan.rules[ruleIndex].entries {
                    guard let state = slotStates[plan.entries[entry].key], state.phase != .inactive else { continue }
                    consider(state.nextDeadline(policy: plan.rules[ruleIndex].policy))
                }
            }
            return earliest
        }
        for rule in settings.rules {
            let policy = LeveledAlertPolicy(rule)
            for asset in rule.assets {
                consider(state(forKey: PremiumEvents.key(rule: rule.name, asset: asset))?.nextDeadline(policy: policy))
            }
        }
        return earliest
    }

    /// Every key firing now (unsorted), without building the `states` dictionary.
    package func firingKeys() -> [String] {
        var keys = detachedStates.filter(\.value.isFiring).map(\.key)
        for (slot, state) in slotStates.enumerated() where state?.isFiring == true { keys.append(plan.keys[slot]) }
        return keys
    }

    /// The observation with the highest premium (the first such key, in rule and asset order).
    package func highestObservation() -> PremiumObservation? {
        var top: PremiumObservation?
        for case let observation? in slotLatest where top.map({ observation.pct > $0.pct }) ?? true { top = observation }
        for observation in detachedLatest.values where top.map({ observation.pct > $0.pct }) ?? true { top = observation }
        return top
    }

    /// Calls `body` with every pending key's latest observation (the engine's stale-quote deadline).
    package func forEachPending(_ body: (PremiumObservation) -> Void) {
        for slot in slotStates.indices {
            guard case .pending? = slotStates[slot]?.phase, let observation = slotLatest[slot] else { continue }
            body(observation)
        }
        for (key, state) in detachedStates {
            guard case .pending = state.phase, let observation = detachedLatest[key] else { continue }
            body(observation)
        }
    }
}

/// Which assets an evaluation covers: all, or those a stream batch carries (a few quotes are scanned, a
/// large batch is put in a set; a single quote allocates nothing).
package enum AssetFilter: Sendable {
    case all
    case quotes([Quote])
    case set(Set<String>)

    package init(_ quotes: [Quote]) {
        self = quotes.count <= 8 ? .quotes(quotes) : .set(Set(quotes.map(\.base)))
    }

    @inline(__always)
    func contains(_ asset: String) -> Bool {
        switch self {
        case .all: true
        case .quotes(let quotes): quotes.contains { $0.base == asset }
        case .set(let assets): assets.contains(asset)
        }
    }
}
