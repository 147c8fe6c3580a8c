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
    /// v3, rules comparing KRW with USD-quoted markets: the premium on both KRW conversions.
    package var bases: PremiumBases?
}

/// Evaluates every premium rule × asset against a quote book. Owns the alert state of each key; a pure
/// value that the supervisor holds and persists.
///
/// The rules are compiled into a `PremiumPlan` when they change; each key's state and latest observation
/// live in arrays indexed by the plan's key slots, so an evaluation hashes no string. The String-keyed
/// views (`states`, `latest(in:)`, `state(forKey:)`, `observation(forKey:in:)`) are derived from those
/// arrays. A `last`/`mid` key keeps its observation as `ObservedSides` (slots into the quote book): the
/// views make the observation from the book the evaluation read.
package struct PremiumEvaluator: Sendable {
    private(set) var plan = PremiumPlan(rules: [])
    /// Per plan key: its state machine and latest observation (nil: none yet / too few prices), the sides of
    /// a `last`/`mid` rule or the whole observation of a `bidask`/`depth` rule (at most one of the two).
    private(set) var slotStates: [LeveledAlertStateMachine?] = []
    private(set) var slotSides: [ObservedSides?] = []
    private(set) var slotLatest: [PremiumObservation?] = []
    /// States (and observations) of keys outside the plan: restored before the first evaluation, or of a
    /// rule or asset that a reload removed, until `retain` forgets them.
    private(set) var detachedStates: [String: LeveledAlertStateMachine] = [:]
    private(set) var detachedLatest: [String: LatestObservation] = [:]
    /// Per plan currency: its conversion into the reference currency for the current evaluation.
    var conversions: [ReferenceConversion?] = []
    /// The converter `conversions` were computed with (nil: not computed for this plan).
    var conversionsFrom: ConverterIdentity?
    var scratch: [BidAskCandidate] = []
    /// v3: the same per currency on the `krw_via: usdt` basis (`PremiumEvaluator+Bases.swift`).
    var usdtConversions: [ReferenceConversion?] = []
    var usdtConversionsFrom: ConverterIdentity?
    var basesRates = BasesRates()
    /// The entries a stream batch selects (reused: no allocation per evaluation).
    private var selected: [Int] = []
    /// v3 `transfers: require`: what is suspended now, and its flags compiled for the plan
    /// (`PremiumEvaluator+Transfers.swift`; `transferFlagsStale` when the plan or the blocks changed).
    var transferBlocks = TransferBlocks()
    var transferFlags: [UInt8] = []
    var transferFlagsStale = true
    /// Keys whose premium is above their rule's `max_plausible_pct` now: bad data, not a premium. Their state
    /// machines see no value (nothing fires or resolves on it).
    package private(set) var implausible: [String: PremiumObservation] = [:]

    /// `deadline(settings:)` as of the last evaluation, kept while no key's state or pending observation
    /// changes (`PremiumEvaluator+Deadline.swift`).
    var deadlineCache: DeadlineCache?

    /// Premium history: min / max / last pct per slot and the context rings (`History/PremiumHistory.swift`).
    package var history = PremiumHistory()

    package init(states: [String: LeveledAlertStateMachine] = [:]) { detachedStates = states }

    /// Compiles `rules` when they differ from the plan's, carrying every key's state and observation over.
    private mutating func prepare(_ rules: [PremiumRule]) {
        guard !plan.compiles(rules) else { return }
        for (slot, key) in plan.keys.enumerated() {
            if let state = slotStates[slot] { detachedStates[key] = state }
            if let sides = slotSides[slot] { detachedLatest[key] = .sides(sides) }
            if let observation = slotLatest[slot] { detachedLatest[key] = .full(observation) }
        }
        plan = PremiumPlan(rules: rules)
        slotStates = plan.keys.map { detachedStates.removeValue(forKey: $0) }
        slotSides = []
        slotLatest = []
        for key in plan.keys {
            switch detachedLatest.removeValue(forKey: key) {
            case .sides(let sides)?:
                slotSides.append(sides)
                slotLatest.append(nil)
            case .full(let observation)?:
                slotSides.append(nil)
                slotLatest.append(observation)
            case nil:
                slotSides.append(nil)
                slotLatest.append(nil)
            }
        }
        // A key keeps the kind of observation its rule's basis makes (a reload may have changed the basis).
        for entry in plan.entries {
            switch plan.rules[entry.rule].rule.basis {
            case .last, .mid: slotLatest[entry.key] = nil
            case .bidask, .depth: slotSides[entry.key] = nil
            }
        }
        conversions = Array(repeating: nil, count: plan.currencies.count)
        conversionsFrom = nil
        transferFlagsStale = true
        usdtConversions = conversions
        usdtConversionsFrom = nil
        deadlineCache = nil
    }

    /// Evaluates the rules (or only those involving `exchange`, when given; only those `include` admits) at
    /// `now`.
    package mutating func evaluate(
        settings: PremiumSettings, book: QuoteBook, converter: some ConversionBasis, now: Date,
        onlyInvolving exchange: ExchangeID? = nil, assets filter: AssetFilter = .all,
        usdt: USDTConversionBasis? = nil, including include: (PremiumRule) -> Bool = { _ in true }
    ) -> [PremiumDecision] {
        prepare(settings.rules)
        if transferFlagsStale { compileTransferFlags() }
        history.bind(to: plan.keys)  // O(1) unless the plan (or the history) changed since the last evaluation
        plan.resolve(in: book)
        // Once per converter (it changes with the FX selection), not per evaluation of a stream quote.
        if conversionsFrom !== converter.identity {
            for (index, currency) in plan.currencies.enumerated() { conversions[index] = converter.toReference(1, currency: currency) }
            conversionsFrom = converter.identity
            basesRates.usdKrw = Self.usdKrw(converter)
        }
        prepareUSDT(usdt)
        let oldest = now.addingTimeInterval(-settings.maxQuoteAge.seconds)
        var decisions: [PremiumDecision] = []
        // The rule of the entry last seen, and whether it takes part (entries come in rule order).
        var rule = -1
        var admitted = false
        func visit(_ entry: Int) {
            if plan.entries[entry].rule != rule {
                rule = plan.entries[entry].rule
                admitted = exchange.map { plan.rules[rule].rule.exchanges.contains($0) } ?? true
                admitted = admitted && include(plan.rules[rule].rule)
            }
            guard admitted else { return }
            evaluateEntry(entry, rule: rule, book: book, now: now, oldest: oldest, into: &decisions)
        }
        defer { refreshDeadline(settings: settings) }
        switch filter {
        case .all:
            // By rule: whether it takes part is asked once per rule, not per entry.
            for ruleIndex in plan.rules.indices {
                if let exchange, !plan.rules[ruleIndex].rule.exchanges.contains(exchange) { continue }
                guard include(plan.rules[ruleIndex].rule) else { continue }
                for entry in plan.rules[ruleIndex].entries {
                    evaluateEntry(entry, rule: ruleIndex, book: book, now: now, oldest: oldest, into: &decisions)
                }
            }
        case .quotes:
            // Only the entries of the assets the batch carries, in plan order (as a full evaluation would
            // meet them): one lookup per asset instead of a comparison per entry of every rule.
            selected.removeAll(keepingCapacity: true)
            filter.forEachAsset { asset in selected.append(contentsOf: plan.entriesByAsset[asset] ?? []) }
            if filter.assetCount > 1 { selected.sort() }
            var previous = -1
            for entry in selected where entry != previous {
                previous = entry
                visit(entry)
            }
        }
        return decisions
    }

    /// Observes one entry (a rule × asset) and steps its key's state machine; appends the decision when it
    /// acted or changed phase. (Appended, not returned: an optional decision, 1.4 kB, was copied out of every
    /// call, a fifth of a full evaluation.)
    private mutating func evaluateEntry(
        _ entry: Int, rule ruleIndex: Int, book: QuoteBook, now: Date, oldest: Date, into decisions: inout [PremiumDecision]
    ) {
        let slot = plan.entries[entry].key  // the key is `plan.keys[slot]`
        // The rule's fields are read in place: a copy of the whole `PremiumRule` per key was a tenth of this.
        let viaUSDT = plan.rules[ruleIndex].rule.krwVia == .usdt
        let maxPlausiblePct = plan.rules[ruleIndex].rule.maxPlausiblePct
        let pct: Double?
        switch plan.rules[ruleIndex].rule.basis {
        case .last, .mid:
            // By slot, no quote copied: the observation is made when something reads it.
            var sides = plan.observeSides(
                entry: entry, rule: ruleIndex, book: book, conversions: viaUSDT ? usdtConversions : conversions, oldest: oldest,
                transfer: transferFlags)
            if let seen = sides?.pct, seen > maxPlausiblePct {
                implausible[plan.keys[slot]] = sides?.observation(in: book)
                sides = nil
            } else if !implausible.isEmpty {
                implausible[plan.keys[slot]] = nil
            }
            pct = sides?.pct
            slotSides[slot] = consume sides
        case .bidask, .depth:
            var observation = plan.observeCandidates(
                entry: entry, rule: ruleIndex, book: book, conversions: viaUSDT ? usdtConversions : conversions, oldest: oldest,
                scratch: &scratch, transfer: transferFlags)
            if let seen = observation?.pct, seen > maxPlausiblePct {
                implausible[plan.keys[slot]] = observation
                observation = nil
            } else if !implausible.isEmpty {
                implausible[plan.keys[slot]] = nil
            }
            pct = observation?.pct
            slotLatest[slot] = consume observation
        }
        if let pct { history.observe(at: slot, pct: pct, now: now) }  // bound to `plan.keys` in `evaluate`
        // Moved out of its slot and back (`take`), not copied and then assigned over the old value.
        var state = slotStates[slot].take() ?? LeveledAlertStateMachine()
        let before = state.phase
        let keptBefore = state.clearingSince != nil
        let action = state.observe(pct, now: now, policy: plan.rules[ruleIndex].policy)
        let changed = state.phase != before
        // A deadline moves with a key's phase, with a pending key's quotes, and while `keep_firing_for` holds
        // a key (not with its value alone). Holding it is not persisted: a restart meanwhile starts it over.
        if case .pending = before { deadlineCache = nil } else if changed || keptBefore || state.clearingSince != nil { deadlineCache = nil }
        guard action != .none || changed else {
            slotStates[slot] = consume state
            return
        }
        slotStates[slot] = state
        decisions.append(PremiumDecision(
            rule: plan.rules[ruleIndex].rule, key: plan.keys[slot], observation: latestObservation(slot: slot, in: book), action: action,
            state: state,
            stateChanged: changed, bases: bases(entry: entry, rule: ruleIndex, observed: pct, book: book, oldest: oldest)))
    }

    /// Forgets keys of rules or assets that are no longer configured (after a reload).
    package mutating func retain(settings: PremiumSettings) -> [String] {
        prepare(settings.rules)
        // v3: an `assets: all` rule not resolved yet (at start, before the market lists are read) keeps its
        // restored states until its assets are known.
        let unresolved = Set(settings.rules.filter { $0.selection.all && $0.assets.isEmpty }.map { "premium/\($0.name)/" })
        let gone = detachedStates.keys.filter { key in !unresolved.contains { key.hasPrefix($0) } }
        for key in gone {
            detachedStates[key] = nil
            detachedLatest[key] = nil
        }
        if unresolved.isEmpty { detachedLatest = [:] }
        for key in implausible.keys where plan.index[key] == nil { implausible[key] = nil }
        deadlineCache = nil
        refreshDeadline(settings: settings)
        return gone
    }
}

/// Which assets an evaluation covers: all, or those a stream batch carries (looked up in the plan per quote;
/// nothing is allocated for it).
package enum AssetFilter: Sendable {
    case all
    case quotes([Quote])

    package init(_ quotes: [Quote]) { self = .quotes(quotes) }

    /// Calls `body` with each asset the filter names, repeats included (not for `.all`).
    func forEachAsset(_ body: (String) -> Void) {
        guard case .quotes(let quotes) = self else { return }
        for quote in quotes { body(quote.base) }
    }

    /// How many assets `forEachAsset` visits.
    var assetCount: Int {
        guard case .quotes(let quotes) = self else { return 0 }
        return quotes.count
    }
}
