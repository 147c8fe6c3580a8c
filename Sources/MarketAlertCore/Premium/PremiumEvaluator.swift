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
package struct PremiumEvaluator: Sendable {
    package private(set) var states: [String: LeveledAlertStateMachine] = [:]
    /// The latest observation per key (nil when too few prices), for `once` and the status line.
    package private(set) var latest: [String: PremiumObservation] = [:]
    /// Keys whose premium is above their rule's `max_plausible_pct` now: bad data, not a premium. Their state
    /// machines see no value (nothing fires or resolves on it).
    package private(set) var implausible: [String: PremiumObservation] = [:]

    /// `premium/<rule>/<asset>` per rule name and asset, built once per rule set: evaluation must not build
    /// key strings on every quote.
    private var keys: [String: [String: String]] = [:]
    /// Premium history: min / max / last pct per slot and the context rings (`History/PremiumHistory.swift`).
    package var history = PremiumHistory()

    package init(states: [String: LeveledAlertStateMachine] = [:]) { self.states = states }

    private mutating func key(rule: String, asset: String) -> String {
        if let key = keys[rule]?[asset] { return key }
        let key = PremiumEvents.key(rule: rule, asset: asset)
        keys[rule, default: [:]][asset] = key
        return key
    }

    /// Evaluates the rules (or only those involving `exchanges`, when given; only those `include` admits) at
    /// `now`.
    package mutating func evaluate(
        settings: PremiumSettings, book: QuoteBook, converter: CurrencyConverter, now: Date,
        onlyInvolving exchanges: Set<ExchangeID>? = nil, assets filter: AssetFilter = .all,
        including include: (PremiumRule) -> Bool = { _ in true }
    ) -> [PremiumDecision] {
        var decisions: [PremiumDecision] = []
        for rule in settings.rules {
            if let exchanges, exchanges.isDisjoint(with: rule.exchanges) { continue }
            guard include(rule) else { continue }
            let policy = LeveledAlertPolicy(rule)
            for asset in rule.assets {
                guard filter.contains(asset) else { continue }
                let key = key(rule: rule.name, asset: asset)
                var observation = PremiumCalculator.observe(
                    rule: rule, asset: asset, book: book, converter: converter, maxQuoteAge: settings.maxQuoteAge, now: now)
                if let seen = observation, seen.pct > rule.maxPlausiblePct {
                    implausible[key] = seen
                    observation = nil
                } else if !implausible.isEmpty {
                    implausible[key] = nil
                }
                latest[key] = observation
                if let pct = observation?.pct { history.observe(key, pct: pct, now: now) }
                var state = states[key] ?? LeveledAlertStateMachine()
                let before = state
                let action = state.observe(observation?.pct, now: now, policy: policy)
                let changed = state.phase != before.phase
                states[key] = state
                if action != .none || changed {
                    decisions.append(
                        PremiumDecision(rule: rule, key: key, observation: observation, action: action, state: state, stateChanged: changed))
                }
            }
        }
        return decisions
    }

    /// Forgets keys of rules or assets that are no longer configured (after a reload).
    package mutating func retain(settings: PremiumSettings) -> [String] {
        let live = Set(settings.rules.flatMap { rule in rule.assets.map { PremiumEvents.key(rule: rule.name, asset: $0) } })
        keys = [:]
        let gone = states.keys.filter { !live.contains($0) }
        for key in gone {
            states[key] = nil
            latest[key] = nil
            implausible[key] = nil
        }
        return gone
    }

    /// The earliest time at which a `for` or `repeat_interval` falls due.
    package func nextDeadline(settings: PremiumSettings) -> Date? {
        var earliest: Date?
        for rule in settings.rules {
            let policy = LeveledAlertPolicy(rule)
            for asset in rule.assets {
                guard let deadline = states[PremiumEvents.key(rule: rule.name, asset: asset)]?.nextDeadline(policy: policy) else { continue }
                if earliest.map({ deadline < $0 }) ?? true { earliest = deadline }
            }
        }
        return earliest
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
