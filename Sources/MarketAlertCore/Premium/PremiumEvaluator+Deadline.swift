import Foundation

/// When the premium keys next need time alone to move them: a `for` or `repeat_interval` falling due, or a
/// pending key's quote going stale (a pending condition not seen to hold starts over).
///
/// Why cached: the engine asks after every stream quote whether its timer must move earlier, and answering
/// walks every key (100 for 2 rules × 50 assets): a fifth of the engine's instructions per quote. The answer
/// changes only when a key's state changes or a pending key is observed again, which `evaluateEntry` notes
/// by dropping the cache; `evaluate` and `retain` then compute it once, for the next questions.
extension PremiumEvaluator {
    /// `deadline(settings:)` as computed after the last change, and for which quote age limit.
    struct DeadlineCache: Sendable {
        var maxQuoteAge: Double
        var value: Date?
    }

    /// The earliest instant at which `evaluate` could change something without a new quote.
    package func deadline(settings: PremiumSettings) -> Date? {
        if let cache = deadlineCache, cache.maxQuoteAge == settings.maxQuoteAge.seconds, plan.compiles(settings.rules) {
            return cache.value
        }
        return computeDeadline(settings: settings)
    }

    /// Computes the cache again if a change dropped it.
    mutating func refreshDeadline(settings: PremiumSettings) {
        guard deadlineCache == nil, plan.compiles(settings.rules) else { return }
        deadlineCache = DeadlineCache(maxQuoteAge: settings.maxQuoteAge.seconds, value: computeDeadline(settings: settings))
    }

    private func computeDeadline(settings: PremiumSettings) -> Date? {
        var earliest = nextDeadline(settings: settings)
        let maxAge = settings.maxQuoteAge.seconds
        forEachPending { oldestAt in
            // A quote is fresh while `at >= now - max_quote_age`: stale from just after that instant.
            let expiry = oldestAt.addingTimeInterval(maxAge + 0.001)
            if earliest.map({ expiry < $0 }) ?? true { earliest = expiry }
        }
        return earliest
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
            // strings retained and released) on every call.
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

    /// Calls `body` with the older quote time of every pending key's latest observation.
    func forEachPending(_ body: (Date) -> Void) {
        for slot in slotStates.indices {
            guard case .pending? = slotStates[slot]?.phase else { continue }
            if let sides = slotSides[slot] {
                body(sides.oldestAt)
            } else if let observation = slotLatest[slot] {
                body(min(observation.high.quote.at, observation.low.quote.at))
            }
        }
        for (key, state) in detachedStates {
            guard case .pending = state.phase, let latest = detachedLatest[key] else { continue }
            switch latest {
            case .sides(let sides): body(sides.oldestAt)
            case .full(let observation): body(min(observation.high.quote.at, observation.low.quote.at))
            }
        }
    }
}
