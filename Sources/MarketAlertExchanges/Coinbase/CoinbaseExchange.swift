import Foundation
import MarketAlertCore
import MarketAlertKit

/// Coinbase Exchange. REST: `/products/<id>/ticker`, one request per product (10 requests a second per IP).
package enum CoinbaseExchange {
    package static let descriptor = ExchangeDescriptor(
        catalog: .constant(.coinbase, rest: "https://api.exchange.coinbase.com", stream: "wss://ws-feed.exchange.coinbase.com", minimumPollInterval: .seconds(1), takerFeePct: 0.6,
                           restRequestsPerSecond: CoinbaseTickerSource.requestsPerSecond),
        marketID: CoinbaseTickerSource.productID,
        makeQuoteSource: { CoinbaseTickerSource(settings: $0, fetcher: $1) },
        decodeTickers: { body, watched, at throws(SourceError) in
            try watched.map { pair throws(SourceError) in try CoinbaseTickerSource.decode(body, product: pair, receivedAt: at) }
        },
        stream: CoinbaseStream(),
        wire: CoinbaseWire.kit,
        marketList: { CoinbaseMarketList(client: $0) },
        volumes: { CoinbaseVolumes(client: $0) },
        transferStatus: CoinbaseTransferStatus.adapter)
}
