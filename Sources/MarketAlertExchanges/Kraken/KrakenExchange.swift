import Foundation
import MarketAlertCore
import MarketAlertKit

/// Kraken spot. REST: `/0/public/Ticker` (its public call counter allows about one call a second).
package enum KrakenExchange {
    package static let descriptor = ExchangeDescriptor(
        catalog: .constant(.kraken, rest: "https://api.kraken.com", stream: "wss://ws.kraken.com/v2", minimumPollInterval: .seconds(1), takerFeePct: 0.4),
        marketID: KrakenPairNames.requestName,
        makeQuoteSource: { KrakenTickerSource(settings: $0, fetcher: $1) },
        decodeTickers: { body, watched, at throws(SourceError) in try KrakenTickerSource.decode(body, watched: watched, receivedAt: at) },
        stream: KrakenStream(),
        wire: KrakenWire.kit,
        marketList: { KrakenMarketList(client: $0) },
        volumes: { KrakenVolumes(client: $0) },
        transferStatus: KrakenTransferStatus.adapter)
}
