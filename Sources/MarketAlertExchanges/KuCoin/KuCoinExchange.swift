import Foundation
import MarketAlertCore
import MarketAlertKit

extension ExchangeID {
    package static let kucoin: ExchangeID = "kucoin"
}

/// KuCoin spot. REST: `/api/v1/market/allTickers` (weight 15 of the public pool's 2,000 per 30 s per IP: one
/// poll every 500 ms spends 900, leaving room for the bullet requests and a second instance). Its stream URL
/// is its REST base: every connection's WebSocket endpoint and token come from `POST /api/v1/bullet-public`.
package enum KuCoinExchange {
    package static let descriptor = ExchangeDescriptor(
        catalog: .constant(.kucoin, rest: "https://api.kucoin.com", stream: "https://api.kucoin.com", minimumPollInterval: .milliseconds(500), takerFeePct: 0.1),
        marketID: KuCoinTickerSource.symbol,
        makeQuoteSource: { KuCoinTickerSource(settings: $0, fetcher: $1) },
        decodeTickers: { body, watched, at throws(SourceError) in try KuCoinTickerSource.decode(body, watched: watched, receivedAt: at) },
        stream: KuCoinStream(),
        wire: KuCoinWire.kit,
        marketList: { KuCoinMarketList(client: $0) },
        volumes: { KuCoinVolumes(client: $0) },
        transferStatus: KuCoinTransferStatus.adapter)
}
