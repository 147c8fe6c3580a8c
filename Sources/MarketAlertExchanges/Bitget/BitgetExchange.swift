import Foundation
import MarketAlertCore
import MarketAlertKit

/// Bitget v2 spot. REST: `/api/v2/spot/market/tickers` (20 requests a second per IP).
package enum BitgetExchange {
    package static let descriptor = ExchangeDescriptor(
        catalog: .constant(.bitget, rest: "https://api.bitget.com", stream: "wss://ws.bitget.com/v2/ws/public", minimumPollInterval: .milliseconds(250), takerFeePct: 0.1),
        marketID: BitgetTickerSource.symbol,
        makeQuoteSource: { BitgetTickerSource(settings: $0, fetcher: $1) },
        decodeTickers: { body, watched, at throws(SourceError) in try BitgetTickerSource.decode(body, watched: watched, receivedAt: at) },
        stream: BitgetStream(),
        wire: BitgetWire.kit,
        marketList: { BitgetMarketList(client: $0) },
        volumes: { BitgetVolumes(client: $0) },
        transferStatus: BitgetTransferStatus.adapter)
}
