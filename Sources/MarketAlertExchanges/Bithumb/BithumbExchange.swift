import Foundation
import MarketAlertCore
import MarketAlertKit

/// Bithumb (KRW markets). REST: `/public/ticker/ALL_<QUOTE>`, one request per quote currency.
package enum BithumbExchange {
    package static let descriptor = ExchangeDescriptor(
        catalog: .constant(.bithumb, rest: "https://api.bithumb.com", stream: "wss://ws-api.bithumb.com/websocket/v1", minimumPollInterval: .milliseconds(250), takerFeePct: 0.04),
        marketID: BithumbTickerSource.marketID,
        makeQuoteSource: { BithumbTickerSource(settings: $0, fetcher: $1) },
        decodeTickers: { body, watched, at throws(SourceError) in
            let quotes = Set(watched.map(\.quote))
            var result: [Quote] = []
            for quote in quotes.sorted() {
                result += try BithumbTickerSource.decode(
                    body, quoteCurrency: quote, watched: watched.filter { $0.quote == quote }, receivedAt: at)
            }
            return result
        },
        stream: BithumbStream(),
        wire: BithumbWire.kit,
        marketList: { BithumbMarketList(client: $0) },
        volumes: { BithumbVolumes(client: $0) },
        transferStatus: BithumbTransferStatus.adapter)
}
