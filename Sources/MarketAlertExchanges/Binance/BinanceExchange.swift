import Foundation
import MarketAlertCore
import MarketAlertKit

/// Binance spot. REST: `/api/v3/ticker/24hr` (request weight 2–80 of 6,000 a minute, so 1 s is the floor).
package enum BinanceExchange {
    package static let descriptor = ExchangeDescriptor(
        catalog: .constant(.binance, rest: "https://api.binance.com", stream: "wss://stream.binance.com:9443/ws", minimumPollInterval: .seconds(1), takerFeePct: 0.1),
        marketID: BinanceTickerSource.symbol,
        makeQuoteSource: { BinanceTickerSource(settings: $0, fetcher: $1) },
        decodeTickers: { body, watched, at throws(SourceError) in try BinanceTickerSource.decode(body, watched: watched, receivedAt: at) },
        stream: BinanceStream(),
        wire: BinanceWire.kit,
        marketList: { BinanceMarketList(client: $0) },
        volumes: { BinanceVolumes(client: $0) },
        transferStatus: BinanceTransferStatus.adapter)
}
