import Foundation

/// Which price a premium rule compares.
package enum PremiumBasis: String, Sendable, CaseIterable, Codable {
    /// Last trade price.
    case last
    /// (bid + ask) / 2.
    case mid
    /// Executable: best bid on the dear exchange against best ask on the cheap one.
    case bidask
    /// v3, executable at a size: buy `notional` on one exchange's asks, sell the quantity into another's bids
    /// (order books at depth), net of taker fees when `net_of_fees`.
    case depth
}

/// v3 rule key `transfers`: what deposit and withdrawal status means for a premium.
package enum TransferMode: String, Sendable, CaseIterable, Codable {
    /// Not looked at.
    case ignore
    /// Said in every premium notification (`premium.transfer`).
    case annotate
    /// Pairs where the cheap side cannot withdraw or the dear side cannot deposit are left out.
    case require
}

/// One threshold of a leveled alert: crossing `pct` upward notifies with `severity`.
package struct AlertLevel: Sendable, Equatable, Codable {
    package var pct: Double
    package var severity: Severity

    package init(pct: Double, severity: Severity) {
        self.pct = pct
        self.severity = severity
    }
}

/// A premium rule: compare `assets` across `exchanges`, alert through `levels`, resolve below `clearPct`.
package struct PremiumRule: Sendable, Equatable {
    package var name: String
    package var assets: [String]
    package var exchanges: [ExchangeID]
    /// Quote currencies in order of preference: per exchange the first one it trades is used.
    package var quotes: [String]
    package var basis: PremiumBasis = .last
    /// Ascending by `pct`.
    package var levels: [AlertLevel]
    package var clearPct: Double
    package var forDuration: Duration = .zero
    /// Zero means never repeat.
    package var repeatInterval: Duration = .zero
    /// v3 `keep_firing_for`: how long a firing alert stays firing after its premium falls below `clear_pct`
    /// (zero: it resolves at once, as in versions 1 and 2).
    package var keepFiringFor: Duration = .zero
    /// A premium above this is not a premium but bad data: it is reported as a data-quality problem of the
    /// outlying exchange (a `source` event), never as a premium alert.
    package var maxPlausiblePct: Double = PremiumRule.defaultMaxPlausiblePct
    /// v2 `context_window`: the history each notification's `premium.context` is measured against; nil means
    /// the default (see ``contextWindow(resolution:)``).
    package var contextWindow: Duration?
    /// v3, `basis: depth`: the trade size in the reference currency.
    package var notional: Double = PremiumRule.defaultNotional
    /// v3: apply each side's taker fee (`basis: depth`).
    package var netOfFees = true
    /// v3: each exchange's taker fee in percent, resolved by the config reader (the exchange's
    /// `taker_fee_pct`, else its published base-tier fee).
    package var takerFeePct: [ExchangeID: Double] = [:]
    /// v3: what transfer status means for this rule.
    package var transfers: TransferMode = .ignore
    /// v3: `transfers` as written in the file (nil: not given; `transfers:` present makes it `annotate`).
    package var transfersGiven: TransferMode?
    /// v3 `krw_via`: the KRW conversion the rule alerts on.
    package var krwVia: KRWVia = .usdFx
    /// v3 `assets: all`, `min_exchanges`, `exclude_assets`, `min_volume_24h` (`Universe/AssetSelection.swift`).
    package var selection = AssetSelection()
    /// v3: markets left out for `min_volume_24h`, resolved with `assets` from the market lists (`WatchedAssets`).
    package var ignoredMarkets: Set<ExchangeMarket> = []

    package init(
        name: String, assets: [String], exchanges: [ExchangeID], quotes: [String], basis: PremiumBasis = .last,
        levels: [AlertLevel], clearPct: Double, forDuration: Duration = .zero, repeatInterval: Duration = .zero
    ) {
        self.name = name
        self.assets = assets
        self.exchanges = exchanges
        self.quotes = quotes
        self.basis = basis
        self.levels = levels
        self.clearPct = clearPct
        self.forDuration = forDuration
        self.repeatInterval = repeatInterval
    }

    package static let defaultMaxPlausiblePct = 100.0
    package static let defaultNotional = 10_000.0

    /// The brief's default: a 0.05% notice level, a 0.1% warning level, clearing below 0.04%.
    package static let defaultLevels = [AlertLevel(pct: 0.05, severity: .notice), AlertLevel(pct: 0.1, severity: .warning)]
}

package struct PremiumSettings: Sendable, Equatable {
    package var reference = "USD"
    package var stablecoinsAs: [String: String] = ["USDT": "USD", "USDC": "USD"]
    package var maxQuoteAge: Duration = .seconds(30)
    package var rules: [PremiumRule] = []

    package init() {}
}

extension PremiumRule {
    /// Whether the rule compares KRW markets with USD-quoted ones: its notifications then carry the premium
    /// on both KRW bases (`premium.bases`, v3).
    package var comparesKRWWithUSD: Bool {
        quotes.contains("KRW") && quotes.contains { $0 == "USD" || $0 == "USDT" || $0 == "USDC" }
    }
}
