import MarketAlertCore
import MarketAlertExchanges

/// How the producers are made from settings; the daemon wires the real ones (`ProducerSinkFactory`), tests pass
/// their own sources.
package struct ProducerFactory: Sendable {
    /// The REST source of a configured exchange (nil: unknown to the registry).
    package var quoteSource: @Sendable (ExchangeSettings) -> (any QuoteSource)?
    /// Its stream, when it has one and the settings turn it on.
    package var streamSource: @Sendable (ExchangeSettings) -> (any StreamSource)?
    /// The FX poller for the settings (nil when no FX is needed or no provider is usable).
    package var fxPoller: @Sendable (Settings) -> FXPoller?
    /// The poller of one IPO source.
    package var ipoPoller: @Sendable (IPOSourceSettings, IPOSettings) -> IPOPoller?
    /// v3: the market-list poller of one exchange (nil: its list cannot be read).
    package var listingPoller: @Sendable (ExchangeSettings, ListingSettings) -> ListingPoller? = { _, _ in nil }
    /// v3: the deposit/withdrawal status poller (nil: `transfers:` is absent).
    package var transferPoller: @Sendable (Settings) -> TransferPoller? = { _ in nil }
    /// v3 `assets: all` / `min_volume_24h`: one exchange's market list with 24 h volumes (nil: cannot be read).
    package var universeSource: @Sendable (ExchangeSettings) -> (any MarketUniverseSource)? = { _ in nil }
    /// The market list of one exchange, read while some watched markets are not listed (nil: cannot be read).
    package var marketList: @Sendable (ExchangeSettings) -> (any MarketListSource)? = { _ in nil }
    /// v3 `ipo.value`: the poller of one market-price source (nil: none).
    package var ipoPricePoller: @Sendable (IPOValueSettings, MarketPriceSource) -> IPOMarketPricePoller? = { _, _ in nil }

    package init(
        quoteSource: @escaping @Sendable (ExchangeSettings) -> (any QuoteSource)?,
        streamSource: @escaping @Sendable (ExchangeSettings) -> (any StreamSource)? = { _ in nil },
        fxPoller: @escaping @Sendable (Settings) -> FXPoller? = { _ in nil },
        ipoPoller: @escaping @Sendable (IPOSourceSettings, IPOSettings) -> IPOPoller? = { _, _ in nil }
    ) {
        self.quoteSource = quoteSource
        self.streamSource = streamSource
        self.fxPoller = fxPoller
        self.ipoPoller = ipoPoller
    }
}

/// What a producer depends on: when it changes, a reload restarts that producer.
enum ProducerKey: Hashable, Sendable {
    case exchange(ExchangeID)
    case fx
    case ipo(String)
    case listings(ExchangeID)
    case transfers
    /// v3 `ipo.value`: one market-price source.
    case ipoPrices(MarketPriceSource)

    /// The label this producer sleeps under between its polls (`ClockLabel.poll`).
    var pollLabel: ClockLabel {
        switch self {
        case .exchange(let id): .poll(id.rawValue)
        case .fx: .poll("fx")
        case .ipo(let name): .poll(name)
        case .listings(let id): .poll(ListingSettings.sourceName(id))
        case .transfers: .poll("transfers")
        case .ipoPrices(let source): .poll(source.sourceName)
        }
    }
}

/// The settings a producer was started with, to tell whether a reload changed them.
enum ProducerSpec: Equatable, Sendable {
    case exchange(ExchangeSettings, Set<MarketPair>)
    case fx(FXSettings, Set<String>)
    case ipo(IPOSourceSettings, [String])
    case listings(ExchangeSettings, ListingSettings)
    /// v3: the transfer settings, the watched assets per exchange and those exchanges' settings.
    case transfers(TransferSettings, [ExchangeID: Set<String>], [ExchangeSettings])
    /// v3 `ipo.value` and the price source it is polled for.
    case ipoPrices(IPOValueSettings, MarketPriceSource)

    /// Every producer the settings call for.
    static func all(_ settings: Settings) -> [ProducerKey: ProducerSpec] {
        var specs: [ProducerKey: ProducerSpec] = [:]
        for (id, pairs) in settings.watchedPairsByExchange {
            guard let exchange = settings.exchanges[id] else { continue }
            specs[.exchange(id)] = .exchange(exchange, pairs)
        }
        let currencies = settings.neededFXCurrencies
        if !settings.fx.providers.isEmpty, !currencies.isEmpty || !settings.fx.alerts.isEmpty {
            specs[.fx] = .fx(settings.fx, currencies)
        }
        for source in settings.ipo.sources {
            specs[.ipo(source.name)] = .ipo(source, settings.ipo.excludeNamePatterns)
        }
        if let value = settings.ipo.value, !settings.ipo.sources.isEmpty {
            for source in MarketPriceSource.allCases { specs[.ipoPrices(source)] = .ipoPrices(value, source) }
        }
        if let listings = settings.listings {
            for id in listings.exchanges {
                guard let exchange = settings.exchanges[id], exchange.enabled else { continue }
                specs[.listings(id)] = .listings(exchange, listings)
            }
        }
        if let transfers = settings.transfers, !settings.watchedTransferAssets.isEmpty {
            let watched = settings.watchedTransferAssets
            specs[.transfers] = .transfers(transfers, watched, watched.keys.sorted().compactMap { settings.exchanges[$0] })
        }
        return specs
    }
}
