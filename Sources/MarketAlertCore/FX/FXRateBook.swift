import Foundation

/// What the FX poller knows about each provider: its last rates per currency, when it was last asked, and
/// its failure backoff. A pure value; the poller feeds it results and `FXFailover` reads it.
package struct FXRateBook: Sendable, Equatable {
    package struct ProviderState: Sendable, Equatable {
        /// Last good `USD/<currency>` rate per currency (kept until replaced by a newer one).
        package var rates: [String: FXRate] = [:]
        /// When the provider was last called (success or failure).
        package var lastAttempt: Date?
        package var consecutiveFailures = 0
        /// After a failure: no call before this instant (backoff, at least the server's Retry-After).
        package var retryNotBefore: Date?

        package init() {}
    }

    package private(set) var states: [FXProviderKind: ProviderState] = [:]

    package init() {}

    package func state(_ kind: FXProviderKind) -> ProviderState { states[kind] ?? ProviderState() }

    /// A successful call at `now`. Only `USD/<currency>` rates from that provider are kept, and a rate never
    /// replaces a newer one (a CDN may serve an older copy).
    package mutating func recordSuccess(_ kind: FXProviderKind, rates: [FXRate], at now: Date) {
        var state = self.state(kind)
        state.lastAttempt = now
        state.consecutiveFailures = 0
        state.retryNotBefore = nil
        for rate in rates where rate.base == "USD" && rate.provider == kind.rawValue {
            if let held = state.rates[rate.quote], held.at > rate.at { continue }
            state.rates[rate.quote] = rate
        }
        states[kind] = state
    }

    /// A failed call at `now`; the provider is not asked again for `delay` (the caller's backoff, which
    /// already honours Retry-After).
    package mutating func recordFailure(_ kind: FXProviderKind, at now: Date, delay: Duration) {
        var state = self.state(kind)
        state.lastAttempt = now
        state.consecutiveFailures += 1
        state.retryNotBefore = now.addingTimeInterval(delay.seconds)
        states[kind] = state
    }
}
