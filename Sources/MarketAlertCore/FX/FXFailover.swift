import Foundation

/// One provider call the poll plan asks for.
package struct FXProviderCall: Sendable, Equatable {
    package var kind: FXProviderKind
    /// Every needed currency the provider serves (one request asks for all of them, so its rates stay
    /// complete for the moment an earlier provider goes stale).
    package var currencies: Set<String>

    package init(kind: FXProviderKind, currencies: Set<String>) {
        self.kind = kind
        self.currencies = currencies
    }
}

/// The provider chain (`fx.providers`, in configured order): which provider's rate is used per currency,
/// and which providers a poll calls. Pure: it reads an `FXRateBook` at a given `now`.
///
/// - Selection: per currency, the first provider in order whose rate is fresh (see `FXProviderProfile`)
///   wins. No fresh rate means the currency is absent, so no premium is computed from it.
/// - Poll plan: walk the chain in order. A currency is settled by a provider that already holds a current
///   rate for it (no newer one can exist, so it is not called: OpenExchangeRates is asked at most once per
///   published hour) or that yields a fresh rate when called. The walk stops once every currency is
///   settled, so fallbacks are only called while an earlier provider is stale or failing. A provider is
///   never called inside its backoff or more often than its `minimumCallInterval`; a fresh rate it already
///   holds still settles the currency then.
package struct FXFailover: Sendable, Equatable {
    package var chain: [FXProviderProfile]
    /// Currencies needed as `USD/<currency>` (USD itself is never needed).
    package private(set) var currencies: Set<String>
    package var maxAge: Duration

    package init(chain: [FXProviderProfile], currencies: Set<String>, maxAge: Duration) {
        self.chain = chain
        self.currencies = Set(currencies.map { $0.uppercased() }).subtracting(["USD"])
        self.maxAge = maxAge
    }

    /// The rate used for each needed currency at `now`; currencies without a fresh rate are absent.
    package func select(_ book: FXRateBook, now: Date) -> [String: FXRate] {
        var selected: [String: FXRate] = [:]
        for currency in currencies {
            for profile in chain where profile.serves(currency) {
                if let rate = book.state(profile.kind).rates[currency], profile.isFresh(rate, now: now, maxAge: maxAge) {
                    selected[currency] = rate
                    break
                }
            }
        }
        return selected
    }

    /// The next provider this poll should call, given the calls already made in it (`attempted`), or nil
    /// when the poll is done. Call it again after recording each call's outcome in `book`.
    package func nextCall(_ book: FXRateBook, attempted: Set<FXProviderKind>, now: Date) -> FXProviderCall? {
        var unsettled = currencies
        for profile in chain {
            guard !unsettled.isEmpty else { return nil }
            let served = unsettled.filter(profile.serves)
            guard !served.isEmpty else { continue }
            let state = book.state(profile.kind)
            let fresh = served.filter { currency in
                state.rates[currency].map { profile.isFresh($0, now: now, maxAge: maxAge) } ?? false
            }
            let current = fresh.filter { currency in state.rates[currency].map { profile.isCurrent($0, now: now) } ?? false }
            if current.count < served.count, !attempted.contains(profile.kind), mayCall(profile, state, now: now) {
                return FXProviderCall(kind: profile.kind, currencies: currencies.filter(profile.serves))
            }
            unsettled.subtract(fresh)
        }
        return nil
    }

    /// Outside backoff and the provider's minimum call interval.
    package func mayCall(_ profile: FXProviderProfile, _ state: FXRateBook.ProviderState, now: Date) -> Bool {
        if let retry = state.retryNotBefore, now < retry { return false }
        if let last = state.lastAttempt, now < last.addingTimeInterval(profile.minimumCallInterval.seconds) { return false }
        return true
    }
}
