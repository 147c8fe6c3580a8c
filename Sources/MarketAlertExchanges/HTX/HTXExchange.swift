import Foundation
import MarketAlertCore
import MarketAlertKit

extension ExchangeID {
    package static let htx: ExchangeID = "htx"
}

/// HTX (formerly Huobi) spot. REST: `/market/tickers` (public market data: 800 requests per second per IP).
package enum HTXExchange {
    package static let descriptor = ExchangeDescriptor(
        catalog: .constant(.htx, rest: "https://api.huobi.pro", stream: "wss://api.huobi.pro/ws", minimumPollInterval: .milliseconds(250), takerFeePct: 0.2),
        marketID: HTXTickerSource.symbol,
        makeQuoteSource: { HTXTickerSource(settings: $0, fetcher: $1) },
        decodeTickers: { body, watched, at throws(SourceError) in try HTXTickerSource.decode(body, watched: watched, receivedAt: at) },
        stream: HTXStream(),
        wire: HTXWire.kit,
        marketList: { HTXMarketList(client: $0) },
        volumes: { HTXVolumes(client: $0) },
        transferStatus: HTXTransferStatus.adapter)
}
