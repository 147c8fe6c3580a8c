import Foundation
import MarketAlertCore
import MarketAlertKit

/// Upbit (KRW markets). REST: `/v1/ticker?markets=…` (10 quotation requests a second per IP).
package enum UpbitExchange {
    package static let descriptor = ExchangeDescriptor(
        catalog: .constant(.upbit, rest: "https://api.upbit.com", stream: "wss://api.upbit.com/websocket/v1", minimumPollInterval: .milliseconds(250), takerFeePct: 0.05),
        marketID: UpbitTickerSource.marketCode,
        makeQuoteSource: { UpbitTickerSource(settings: $0, fetcher: $1) },
        decodeTickers: { body, watched, at throws(SourceError) in try UpbitTickerSource.decode(body, watched: watched, receivedAt: at) },
        stream: UpbitStream(),
        wire: UpbitWire.kit,
        marketList: { UpbitMarketList(client: $0) },
        volumes: { UpbitVolumes(client: $0) },
        transferStatus: UpbitTransferStatus.adapter)
}
