import Foundation
import MarketAlertCore
import MarketAlertKit

/// v3 `assets: all` / `min_volume_24h`: one exchange's markets with their 24 h volume. A failure of either
/// request fails the whole read, so the refresh keeps the exchange's previous markets (a missing volume
/// must not make every market look illiquid at once).
package protocol MarketUniverseSource: Sendable {
    var exchange: ExchangeID { get }
    func fetchUniverse() async throws(SourceError) -> [UniverseMarket]
}

/// An exchange's 24 h volumes from its bulk tickers, by the market id its market list uses (`KRW-BTC`,
/// `BTCUSDT`), in the market's quote currency.
package protocol MarketVolumeSource: Sendable {
    func fetchVolumes() async throws(SourceError) -> [String: Double]
}

/// The market list (`MarketListSource`, as `listings:` reads it) joined with the bulk tickers' volumes:
/// two requests per exchange per refresh (hourly).
package struct ListedMarketUniverse: MarketUniverseSource {
    package let list: any MarketListSource
    package let volumes: any MarketVolumeSource
    package var exchange: ExchangeID { list.exchange }

    package func fetchUniverse() async throws(SourceError) -> [UniverseMarket] {
        let markets = try await list.fetchMarkets()
        let volume = try await volumes.fetchVolumes()
        return markets.map { UniverseMarket(MarketPair(base: $0.asset, quote: $0.quote), volume24h: volume[$0.market]) }
    }
}

/// The universe sources the daemon has: an exchange's market list joined with its volumes, both named by
/// its descriptor.
package enum MarketUniverseSources {
    package static func make(
        _ settings: ExchangeSettings, fetcher: HTTPFetcher, registry: ExchangeRegistry = .standard
    ) -> (any MarketUniverseSource)? {
        guard let descriptor = registry[settings.id] else { return nil }
        let client = ExchangeClient(exchange: settings.id, settings: settings, fetcher: fetcher)
        return ListedMarketUniverse(list: descriptor.marketList(client), volumes: descriptor.volumes(client))
    }
}

/// A 24 h volume as exchanges send it: a JSON number or a numeric string. Anything else (null, text, NaN,
/// negative) is unknown, never zero and never a failure of the body.
package struct WireVolume: Decodable, Sendable {
    package let value: Double?

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        var parsed: Double?
        if let text = try? container.decode(String.self) {
            parsed = text.count <= 40 ? Double(text) : nil
        } else if let number = try? container.decode(Double.self) {
            parsed = number
        }
        value = parsed.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
    }
}
