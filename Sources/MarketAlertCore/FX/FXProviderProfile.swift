import Foundation

/// What the failover knows about one FX provider: how it publishes, which bounds how old its rate may be
/// and how often asking again can help, and which currencies it quotes against USD.
///
/// ## Freshness
/// A provider's rate is *fresh* at `now` when
///
///     quoteTime − max_age  ≤  now  ≤  nextPublication(quoteTime) + max_age
///
/// that is: it is no more than `max_age` overdue — the provider has not been expected to publish a newer
/// rate for longer than `max_age` — and not implausibly far in the future. `nextPublication` is:
/// - Dunamu (continuous quotes while the Korean market is open): the quote time itself, so the rule is
///   plainly "age ≤ max_age". Dunamu does not move on weekends or 00:00–09:00 KST, so its rate goes
///   stale then and the chain falls through.
/// - OpenExchangeRates (hourly): quote time + 1 h. A 16:00 rate is fresh until 17:00 + max_age.
/// - Frankfurter (ECB reference rates, snapshot 14:15 CET, published about 16:00 CET on business days):
///   16:00 Frankfurt time on the next TARGET business day. Friday's rate is fresh all weekend, until
///   Monday 16:00 CET + max_age; Thursday's over Easter, until Tuesday (`TARGETClosingDays`).
///
/// A rate is *current* while `now < nextPublication(quoteTime)`: no newer rate exists yet, so calling the
/// provider again is pointless (Dunamu is never current, so it is asked on every poll).
package struct FXProviderProfile: Sendable, Equatable {
    package enum Schedule: Sendable, Equatable {
        /// Quotes change whenever the market moves.
        case continuous
        /// A new rate every `period`.
        case periodic(Duration)
        /// ECB reference rates: one per business day.
        case ecbBusinessDays
    }

    package var kind: FXProviderKind
    package var schedule: Schedule
    /// Never call the provider more often than this, whatever its rates look like (rate-limited APIs).
    package var minimumCallInterval: Duration
    /// The currencies it can quote as `USD/<currency>`; nil means any it happens to publish.
    package var currencies: Set<String>?

    package init(kind: FXProviderKind, schedule: Schedule, minimumCallInterval: Duration, currencies: Set<String>?) {
        self.kind = kind
        self.schedule = schedule
        self.minimumCallInterval = minimumCallInterval
        self.currencies = currencies
    }

    /// The built-in profile of each provider kind.
    package static func standard(_ kind: FXProviderKind) -> FXProviderProfile {
        switch kind {
        case .dunamu:
            // Only FRX.KRWUSD is a USD rate (the other codes are KRW crosses).
            FXProviderProfile(kind: kind, schedule: .continuous, minimumCallInterval: .zero, currencies: ["KRW"])
        case .openexchangerates:
            // Free plan: hourly rates, 1,000 requests a month. At most 4 calls an hour even when its rate
            // is overdue; normally one an hour, and only while an earlier provider is stale.
            FXProviderProfile(kind: kind, schedule: .periodic(.seconds(3600)), minimumCallInterval: .seconds(15 * 60), currencies: nil)
        case .frankfurter:
            FXProviderProfile(kind: kind, schedule: .ecbBusinessDays, minimumCallInterval: .seconds(5 * 60), currencies: ecbCurrencies)
        }
    }

    /// The currencies of the ECB reference rates (as served by Frankfurter v1 on 2025-04-11, plus EUR).
    /// Frankfurter answers 404 to a request naming any other symbol, so only these are ever asked for.
    package static let ecbCurrencies: Set<String> = [
        "AUD", "BGN", "BRL", "CAD", "CHF", "CNY", "CZK", "DKK", "EUR", "GBP", "HKD", "HUF", "IDR", "ILS", "INR",
        "ISK", "JPY", "KRW", "MXN", "MYR", "NOK", "NZD", "PHP", "PLN", "RON", "SEK", "SGD", "THB", "TRY", "ZAR",
    ]

    package func serves(_ currency: String) -> Bool { currencies?.contains(currency) ?? true }

    /// When the provider is expected to publish the rate that replaces one quoted at `quoteTime`.
    package func nextPublication(after quoteTime: Date) -> Date? {
        switch schedule {
        case .continuous: quoteTime
        case .periodic(let period): quoteTime.addingTimeInterval(period.seconds)
        case .ecbBusinessDays: FXQuoteTime.ecbNextPublication(after: quoteTime)
        }
    }

    /// See the type's documentation.
    package func isFresh(_ rate: FXRate, now: Date, maxAge: Duration) -> Bool {
        guard let next = nextPublication(after: rate.at) else { return false }
        return now >= rate.at.addingTimeInterval(-maxAge.seconds) && now <= next.addingTimeInterval(maxAge.seconds)
    }

    /// No newer rate can exist yet. Implies fresh only together with `isFresh`.
    package func isCurrent(_ rate: FXRate, now: Date) -> Bool {
        guard let next = nextPublication(after: rate.at) else { return false }
        return now < next
    }
}
