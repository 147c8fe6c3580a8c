import Foundation
import MarketAlertCore
import MarketAlertKit

/// Bybit v5 spot. REST: `/v5/market/tickers?category=spot` (600 requests per 5 s per IP).
package enum BybitExchange {
    package static let descriptor = ExchangeDescriptor(
        catalog: .constant(.bybit, rest: "https://api.bybit.com", stream: "wss://stream.bybit.com/v5/public/spot", minimumPollInterval: .milliseconds(250), takerFeePct: 0.1),
        marketID: BybitTickerSource.symbol,
        makeQuoteSource: { BybitTickerSource(settings: $0, fetcher: $1) },
        decodeTickers: { body, watched, at throws(SourceError) in try BybitTickerSource.decode(body, watched: watched, receivedAt: at) },
        stream: BybitStream(),
        wire: BybitWire.kit,
        marketList: { BybitMarketList(client: $0) },
        volumes: { BybitVolumes(client: $0) },
        transferStatus: BybitTransferStatus.adapter)
}
