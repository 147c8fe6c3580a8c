import Foundation
import MarketAlertCore
import MarketAlertKit

/// OKX v5. REST: `/api/v5/market/tickers?instType=SPOT` (20 requests per 2 s per IP).
package enum OKXExchange {
    package static let descriptor = ExchangeDescriptor(
        catalog: .constant(.okx, rest: "https://www.okx.com", stream: "wss://ws.okx.com:8443/ws/v5/public", minimumPollInterval: .milliseconds(250), takerFeePct: 0.1),
        marketID: OKXTickerSource.instrumentID,
        makeQuoteSource: { OKXTickerSource(settings: $0, fetcher: $1) },
        decodeTickers: { body, watched, at throws(SourceError) in try OKXTickerSource.decode(body, watched: watched, receivedAt: at) },
        stream: OKXStream(),
        wire: OKXWire.kit,
        marketList: { OKXMarketList(client: $0) },
        volumes: { OKXVolumes(client: $0) },
        transferStatus: OKXTransferStatus.adapter)
}
