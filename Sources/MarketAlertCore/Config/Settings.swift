import Foundation

/// The daemon's whole configuration, as read from `marketalertd.yaml` and validated.
/// Parsing lives in `Settings+Parsing.swift`; keys and defaults are documented there and in the example file.
package struct Settings: Sendable, Equatable {
    /// `state_dir`; nil means `$STATE_DIRECTORY`, else `./state` (resolved by the adapter, which sees the environment).
    package var stateDirectory: String?
    package var displayTimeZones: [String] = ["UTC"]
    package var exchanges: [ExchangeID: ExchangeSettings] = [:]
    package var fx = FXSettings()
    package var premium = PremiumSettings()
    package var ipo = IPOSettings()
    package var sinks = SinkSettings()
    package var sourceAlerts = SourceAlertSettings()
    /// v2 `http:` (nil: no HTTP server).
    package var http: HTTPSettings?
    /// v2 `history:` (nil: no samples, no `premium.context`) and `digest:` (nil: no daily digest).
    package var history: HistorySettings?
    package var digest: DigestSettings?
    /// v2 `ha:` (nil: one instance on SQLite).
    package var ha: HASettings?
    /// v3 `transfers:` (nil: no deposit/withdrawal status; rules ignore it).
    package var transfers: TransferSettings?
    /// v3 `listings:` (nil: market lists are not watched).
    package var listings: ListingSettings?
    /// v3 `routes:`, `time_intervals:` and `inhibit:` (empty: every durable sink takes the kinds it lists).
    package var routing = RoutingSettings()

    package init() {}

    /// Exchanges that are configured and not disabled, in a stable order.
    package var enabledExchanges: [ExchangeSettings] {
        exchanges.values.filter(\.enabled).sorted { $0.id < $1.id }
    }
}

package struct ExchangeSettings: Sendable, Equatable {
    package var id: ExchangeID
    package var enabled = true
    package var pollInterval: Duration = .seconds(5)
    package var baseURL: URL
    package var timeout: Duration = .seconds(5)
    /// v2 `stream` (default true): live market data over the exchange's WebSocket, REST as the fallback.
    package var streamEnabled = true
    /// v2 `stream_url`; nil means no stream (no adapter, or `base_url` overridden without a `stream_url`).
    package var streamURL: URL?
    /// v2 `stale_after`: no market data on a live stream this long → reconnect, REST meanwhile.
    package var staleAfter: Duration = .seconds(30)
    /// v3 `taker_fee_pct`: the fee a market order pays, in percent (default: the catalog's published fee).
    package var takerFeePct = 0.1
    /// From the catalog: the pace of an exchange asked once per market (`ExchangeCatalog.Entry`); nil: one
    /// bulk request a poll.
    package var restRequestsPerSecond: Int?
    /// v3 `depth_levels`: order-book levels kept per market for `basis: depth` rules.
    package var depthLevels = ExchangeSettings.defaultDepthLevels
    /// Derived by the config reader: some `basis: depth` rule watches this exchange, so its stream keeps books.
    package var booksWanted = false
    /// Derived by the config reader: some `basis: mid` or `bidask` rule watches this exchange, or USD/KRW's
    /// `fx.usdt_krw` takes its USDT/KRW (a mid where there is one). Where this is false, a stream whose best
    /// bid/ask has a channel of its own (Binance `@bookTicker`, Bybit `orderbook.1`, HTX `bbo`, Gate
    /// `spot.book_ticker`, Upbit's and Bithumb's `orderbook`) leaves that channel out: `basis: last` needs the
    /// ticker only. True outside the reader: everything, as before.
    package var bestBidAskWanted = true

    package static let defaultDepthLevels = 20
    package static let maximumDepthLevels = 400

    package init(id: ExchangeID, baseURL: URL) {
        self.id = id
        self.baseURL = baseURL
    }
}

package enum FXProviderKind: String, Sendable, CaseIterable, Codable {
    case dunamu, openexchangerates, frankfurter
}

package struct FXProviderSettings: Sendable, Equatable {
    package var kind: FXProviderKind
    package var baseURL: URL
    /// Name of the secret holding the OpenExchangeRates app id (environment or `$CREDENTIALS_DIRECTORY`).
    package var appIDEnv: String?

    package init(kind: FXProviderKind, baseURL: URL, appIDEnv: String? = nil) {
        self.kind = kind
        self.baseURL = baseURL
        self.appIDEnv = appIDEnv
    }
}

package struct FXAlertSettings: Sendable, Equatable {
    package var base: String
    package var quote: String
    package var changePct: Double

    package init(base: String, quote: String, changePct: Double) {
        self.base = base
        self.quote = quote
        self.changePct = changePct
    }

    package var pair: String { "\(base)/\(quote)" }
}

package struct FXSettings: Sendable, Equatable {
    package var pollInterval: Duration = .seconds(60)
    package var maxAge: Duration = .seconds(15 * 60)
    package var timeout: Duration = .seconds(5)
    /// A selected rate that moves more than this (percent) from the last accepted one is held until a second
    /// provider or the next poll confirms it (`USD/KRW` at 1 must never make a 129,900% kimchi premium).
    package var maxMovePct: Double = 10
    package var providers: [FXProviderSettings] = []
    package var alerts: [FXAlertSettings] = []
    /// v3 `fx.usdt_krw` (nil: no USDT/KRW rate) and the tether premium alerts (`pair: USDT/KRW`).
    package var usdtKrw: USDTKRWSettings?
    package var tetherAlerts: [TetherPremiumAlertSettings] = []

    package init() {}
}

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

/// Subscription transitions a user can ask to be told about.
package enum IPONotification: String, Sendable, CaseIterable, Codable, Hashable {
    case announced, opens, last_day, closed, lottery_day
    /// v3: the lottery result was published (`中籤率` in `ipo.value`).
    case drawn
}

package struct IPOSourceSettings: Sendable, Equatable {
    package var name: String
    package var baseURL: URL
    package var pollInterval: Duration = .seconds(3600)
    package var timeZone: String = "Asia/Taipei"
    package var timeout: Duration = .seconds(10)

    package init(name: String, baseURL: URL) {
        self.name = name
        self.baseURL = baseURL
    }
}

package struct IPOSettings: Sendable, Equatable {
    package var sources: [IPOSourceSettings] = []
    package var notify: Set<IPONotification> = [.opens, .last_day]
    package var excludeNamePatterns: [String] = []
    /// v3 `ipo.value`: nil without the section (no market price is fetched, notifications as in v2).
    package var value: IPOValueSettings?

    package init() {}
}

package enum StdoutFormat: String, Sendable, CaseIterable {
    case json, text
}

package enum WebhookFormat: String, Sendable, CaseIterable, Codable {
    case json, slack, discord, telegram
    /// v3: the text rendering POSTed to an ntfy topic URL, with Title, Priority, Tags and Click headers.
    case ntfy
}

package struct WebhookSettings: Sendable, Equatable {
    package var name: String
    package var url: URL?
    package var urlEnv: String?
    package var format: WebhookFormat = .json
    package var secretEnv: String?
    package var timeout: Duration = .seconds(5)
    package var maxAge: Duration = .seconds(24 * 3600)
    package var kinds: Set<AlertKind> = Set(AlertKind.allCases)
    /// Telegram's `chat_id` (required for `format: telegram`).
    package var chatID: String?
    /// v3 `token_env` (ntfy): the secret sent as `Authorization: Bearer`.
    package var tokenEnv: String?

    package init(name: String) { self.name = name }
}

package struct SinkSettings: Sendable, Equatable {
    package var stdoutEnabled = true
    package var stdoutFormat: StdoutFormat = .json
    package var journalEnabled = false
    package var webhooks: [WebhookSettings] = []
    /// v3 `sinks.email[]` (`EmailSettings+Parsing.swift`).
    package var email: [EmailSettings] = []

    package init() {}
}

/// When a failing source raises a `source/<name>` alert.
package struct SourceAlertSettings: Sendable, Equatable {
    /// Fire after this many consecutive failed polls.
    package var afterFailures = 3
    /// Or when the last success is older than this.
    package var afterSilence: Duration = .seconds(5 * 60)
    package var severity: Severity = .warning

    package init() {}
}
