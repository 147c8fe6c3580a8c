import Foundation
import MarketAlertCore
import MarketAlertKit

extension ExchangeID {
    package static let bitfinex: ExchangeID = "bitfinex"
}

/// Bitfinex v2. REST: `/v2/tickers?symbols=ALL` (90 requests a minute per IP: one every 0.67 s, so 1 s).
package enum BitfinexExchange {
    package static let descriptor = ExchangeDescriptor(
        catalog: .constant(
            .bitfinex, rest: "https://api-pub.bitfinex.com", stream: "wss://api-pub.bitfinex.com/ws/2", minimumPollInterval: .seconds(1), takerFeePct: 0.2),
        marketID: BitfinexTickerSource.symbol,
        makeQuoteSource: { BitfinexTickerSource(settings: $0, fetcher: $1) },
        decodeTickers: { body, watched, at throws(SourceError) in try BitfinexTickerSource.decode(body, watched: watched, receivedAt: at) },
        stream: BitfinexStream(),
        wire: BitfinexWire.kit,
        marketList: { BitfinexMarketList(client: $0) },
        volumes: { BitfinexVolumes(client: $0) },
        transferStatus: BitfinexTransferStatus.adapter)
}
