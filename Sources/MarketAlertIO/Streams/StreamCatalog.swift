import Foundation
import Logging
import MarketAlertCore

/// Which exchanges stream, from where by default, and how to make their source. A lookup table keyed by
/// exchange (never a `switch` over `ExchangeID`): an exchange without an entry has no stream and stays on
/// REST.
package enum StreamCatalog {
    package struct Entry: Sendable {
        /// The public endpoint (`stream_url` overrides it).
        package let defaultURL: URL
        let make: @Sendable (_ url: URL, _ staleAfter: Duration, _ clock: any DaemonClock, _ counters: StreamCounters, _ logger: Logger?) -> any StreamSource
    }

    package static let entries: [ExchangeID: Entry] = [
        .binance: entry("wss://stream.binance.com:9443/ws", BinanceStream()),
        .bybit: entry("wss://stream.bybit.com/v5/public/spot", BybitStream()),
        .bitget: entry("wss://ws.bitget.com/v2/ws/public", BitgetStream()),
        .okx: entry("wss://ws.okx.com:8443/ws/v5/public", OKXStream()),
        .upbit: entry("wss://api.upbit.com/websocket/v1", UpbitStream()),
        .bithumb: entry("wss://ws-api.bithumb.com/websocket/v1", BithumbStream()),
        .kraken: entry("wss://ws.kraken.com/v2", KrakenStream()),
        .coinbase: entry("wss://ws-feed.exchange.coinbase.com", CoinbaseStream()),
    ]

    /// The stream source of `exchange` at `url` (nil when the exchange has no stream).
    package static func source(
        for exchange: ExchangeID, url: URL? = nil, staleAfter: Duration = .seconds(30), clock: any DaemonClock,
        counters: StreamCounters = StreamCounters(), logger: Logger? = nil
    ) -> (any StreamSource)? {
        guard let entry = entries[exchange] else { return nil }
        return entry.make(url ?? entry.defaultURL, staleAfter, clock, counters, logger)
    }

    private static func entry<P: ExchangeStreamProtocol>(_ url: StaticString, _ protocolDescription: P) -> Entry {
        Entry(defaultURL: URL(string: "\(url)")!) { url, staleAfter, clock, counters, logger in  // literal URLs above
            WebSocketStreamSource(
                protocol: protocolDescription, url: url, staleAfter: staleAfter, clock: clock, counters: counters, logger: logger)
        }
    }
}
