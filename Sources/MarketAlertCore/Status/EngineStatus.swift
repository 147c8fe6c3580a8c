import Foundation

/// What the engine thinks right now, as one Sendable value read in a single actor hop: the JSON API, the
/// status page and `/metrics` all render from it (`AlertEngine.status(now:)`).
package struct EngineStatus: Sendable {
    package var at: Date
    package var statusLine: String
    /// Every enabled source answered once or was declared down (`/readyz`).
    package var settled: Bool
    /// Sources still awaited (display names, sorted).
    package var awaiting: [String]
    package var sources: [SourceStatus]
    /// The `USD/<currency>` rates in use, by pair.
    package var fx: [FXRate]
    package var premium: [PremiumStatus]
    /// Open and upcoming IPO windows, soonest first.
    package var ipo: [IPOOfferingStatus]
    /// Every key firing now, by key.
    package var alerts: [FiringAlert]
    /// v3: the tether premium (USDT/KRW against the official USD/KRW), when both rates are known; USDT/KRW
    /// itself is listed in `fx`.
    package var usdtKrwPremiumPct: Double?
    /// v3: listings and delistings of the last 7 days, newest first.
    package var listings: [ListingRecord] = []

    package init(
        at: Date, statusLine: String, settled: Bool, awaiting: [String], sources: [SourceStatus], fx: [FXRate],
        premium: [PremiumStatus], ipo: [IPOOfferingStatus], alerts: [FiringAlert]
    ) {
        self.at = at
        self.statusLine = statusLine
        self.settled = settled
        self.awaiting = awaiting
        self.sources = sources
        self.fx = fx
        self.premium = premium
        self.ipo = ipo
        self.alerts = alerts
    }
}

/// One data source: an exchange, an FX provider or an IPO source.
package struct SourceStatus: Sendable, Equatable {
    /// `listing`: an exchange's market list read for `listings:` (`<exchange>-listings`).
    package enum Kind: String, Sendable { case exchange, fx, ipo, listing }

    package var name: String
    package var kind: Kind
    /// The last fetch or stream message succeeded.
    package var up: Bool
    /// `stream` while the exchange's WebSocket is live, else `rest`.
    package var transport: String
    /// The exchange has a stream configured (whether or not it is live).
    package var streamConfigured: Bool
    package var streamConnected: Bool
    package var lastSuccess: Date?
    package var lastError: String?
    package var consecutiveFailures: Int
    /// A `source/<name>` alert is firing.
    package var firing: Bool
    /// Still awaited by the settle gate.
    package var awaited: Bool
    /// A fetch of it has completed (succeeded or failed); false for an FX fallback never called.
    package var heard: Bool
}

/// One rule and asset of the premium table.
package struct PremiumStatus: Sendable, Equatable {
    package var rule: String
    package var asset: String
    /// Nil while fewer than two fresh prices exist (or the rule has not evaluated yet).
    package var observation: PremiumObservation?
    /// Index into the rule's levels while firing (0 = lowest).
    package var firingLevel: Int?
    package var firingSeverity: Severity?
    /// The lowest level of the rule, for the page's scale.
    package var levels: [AlertLevel]
    /// Waiting for a `for` to elapse.
    package var pending: Bool
    /// v3, rules comparing KRW with USD-quoted markets: the premium on both KRW conversions now.
    package var bases: PremiumBases? = nil
    /// v3, `basis: depth`: the trade behind the premium (`premium.executable` of the event schema; nil while
    /// no pair of books fills the notional, and for the other bases).
    package var executable: ExecutableDetail? = nil
    /// The reference currency of the premium (`premium.reference`), in which `executable`'s notional is.
    package var reference = "USD"
}

/// A key firing now, with the last notification decided for it (delivered or held back by a silence).
package struct FiringAlert: Sendable, Equatable {
    package var key: String
    package var kind: AlertKind
    package var severity: Severity
    /// When the key started firing (nil: unknown, e.g. a source alert restored from before this run).
    package var since: Date?
    /// When a notification for the key last reached the sinks (nil: never, e.g. all held back).
    package var lastNotifiedAt: Date?
    /// The silence holding its notifications back now, if any.
    package var silencedBy: String?
    /// The last event decided for the key; its kind-specific object is shown.
    package var event: AlertEvent?
}
