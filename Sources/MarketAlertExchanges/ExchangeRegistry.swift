import Foundation
import Logging
import MarketAlertCore
import MarketAlertKit

/// Everything the daemon knows of one exchange, in one value: its catalog entry (defaults and limits for the
/// config reader), how it spells a market, and how to build its sources. Each exchange's folder defines its
/// own descriptor (`<Name>Exchange.swift`); adding an exchange is one folder plus one line in `standard`.
package struct ExchangeDescriptor: Sendable {
    package var catalog: ExchangeCatalog.Entry
    /// The exchange's own market id for a pair (`BTCUSDT`, `KRW-BTC`, `BTC-USD`, …).
    package var marketID: @Sendable (MarketPair) -> String
    /// The REST ticker source for the configured exchange.
    package var makeQuoteSource: @Sendable (ExchangeSettings, HTTPFetcher) -> any QuoteSource
    /// Decodes one ticker response body into the watched quotes (fixture tests and the benchmarks use it).
    package var decodeTickers: @Sendable (_ body: Data, _ watched: Set<MarketPair>, _ receivedAt: Date) throws(SourceError) -> [Quote]
    /// The exchange's stream protocol (subscriptions, keepalive, frame decoding; nil: no stream adapter yet).
    /// The daemon's WebSocket transport speaks it (`ExchangeRegistry.makeStreamSource`).
    package var stream: (any ExchangeStreamProtocol)?
    /// The exchange as a peer (`<Name>Wire.swift`): its REST answers, stream frames and subscription answers,
    /// and fixtures, for the bench's mock exchanges, the test servers, the fuzz targets and the kit tests.
    package var wire: ExchangeWireKit
    /// v3: the exchange's whole market list (`listings:`, `assets: all`) and its bulk 24 h volumes
    /// (`min_volume_24h`), each one request (`<Name>MarketList.swift`, `<Name>Volumes.swift`). Every exchange
    /// has both, so the config reader need not know which exchanges can be listed.
    package var marketList: @Sendable (ExchangeClient) -> any MarketListSource
    package var volumes: @Sendable (ExchangeClient) -> any MarketVolumeSource
    /// v3 `transfers:`: how the exchange publishes deposit and withdrawal status (`<Name>TransferStatus.swift`;
    /// nil: it does not, and every status stays unknown).
    package var transferStatus: TransferStatusAdapter?

    package init(
        catalog: ExchangeCatalog.Entry, marketID: @escaping @Sendable (MarketPair) -> String,
        makeQuoteSource: @escaping @Sendable (ExchangeSettings, HTTPFetcher) -> any QuoteSource,
        decodeTickers: @escaping @Sendable (Data, Set<MarketPair>, Date) throws(SourceError) -> [Quote],
        stream: (any ExchangeStreamProtocol)? = nil, wire: ExchangeWireKit,
        marketList: @escaping @Sendable (ExchangeClient) -> any MarketListSource,
        volumes: @escaping @Sendable (ExchangeClient) -> any MarketVolumeSource,
        transferStatus: TransferStatusAdapter? = nil
    ) {
        self.catalog = catalog
        self.marketID = marketID
        self.makeQuoteSource = makeQuoteSource
        self.decodeTickers = decodeTickers
        self.stream = stream
        self.wire = wire
        self.marketList = marketList
        self.volumes = volumes
        self.transferStatus = transferStatus
    }

    package var id: ExchangeID { catalog.id }
}

/// The exchanges this build supports.
package struct ExchangeRegistry: Sendable {
    package let descriptors: [ExchangeID: ExchangeDescriptor]
    /// The descriptors in the order they were listed (one id once): the order the bench, its reports and the
    /// fuzz targets' selector bytes follow.
    package let listed: [ExchangeDescriptor]

    package init(_ descriptors: [ExchangeDescriptor]) {
        var seen: Set<ExchangeID> = []
        listed = descriptors.filter { seen.insert($0.id).inserted }
        var byID: [ExchangeID: ExchangeDescriptor] = [:]
        for descriptor in descriptors { byID[descriptor.id] = descriptor }
        self.descriptors = byID
    }

    package static let standard = ExchangeRegistry([
        BinanceExchange.descriptor, BybitExchange.descriptor, BitgetExchange.descriptor, OKXExchange.descriptor,
        UpbitExchange.descriptor, BithumbExchange.descriptor, KrakenExchange.descriptor, CoinbaseExchange.descriptor,
        CoinoneExchange.descriptor, GateExchange.descriptor, KuCoinExchange.descriptor,
        HTXExchange.descriptor,
        BitfinexExchange.descriptor,
    ])

    package subscript(_ id: ExchangeID) -> ExchangeDescriptor? { descriptors[id] }

    /// Every id, sorted.
    package var ids: [ExchangeID] { descriptors.keys.sorted() }

    package var all: [ExchangeDescriptor] { ids.compactMap { descriptors[$0] } }

    package var catalog: ExchangeCatalog { ExchangeCatalog(all.map(\.catalog)) }

    /// The REST source for a configured exchange (nil only for an id this registry does not know, which the
    /// config reader already rejects).
    package func makeQuoteSource(_ settings: ExchangeSettings, fetcher: HTTPFetcher) -> (any QuoteSource)? {
        descriptors[settings.id]?.makeQuoteSource(settings, fetcher)
    }
}

/// What a stream source needs from the daemon.
package struct StreamContext: Sendable {
    package var clock: any DaemonClock
    package var logger: Logger
    /// The counters a stream of an exchange reports into (frames, drops, downs).
    package var counters: @Sendable (ExchangeID) -> StreamCounters
    /// v3: the daemon's HTTP client, for book snapshots a stream fetches over REST (nil: the process's shared one).
    package var fetcher: (any HTTPFetcher)?

    package init(
        clock: any DaemonClock, logger: Logger, counters: @escaping @Sendable (ExchangeID) -> StreamCounters = { _ in StreamCounters() },
        fetcher: (any HTTPFetcher)? = nil
    ) {
        self.clock = clock
        self.logger = logger
        self.counters = counters
        self.fetcher = fetcher
    }
}

extension ExchangeCatalog.Entry {
    /// A catalog entry from constant URL literals.
    package static func constant(
        _ id: ExchangeID, rest: StaticString, stream: StaticString?, minimumPollInterval: Duration, takerFeePct: Double = 0.1,
        restRequestsPerSecond: Int? = nil
    ) -> Self {
        Self(
            id: id, defaultBaseURL: URL(constant: rest), defaultStreamURL: stream.map { URL(constant: $0) },
            minimumPollInterval: minimumPollInterval, takerFeePct: takerFeePct, restRequestsPerSecond: restRequestsPerSecond)
    }
}

extension URL {
    /// A URL from a literal in this code base; a typo there is a programming error caught by the tests.
    package init(constant: StaticString) {
        guard let url = URL(string: "\(constant)") else { preconditionFailure("invalid URL literal \(constant)") }
        self = url
    }
}
