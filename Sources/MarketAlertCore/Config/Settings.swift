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
