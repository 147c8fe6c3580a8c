import Foundation
import MarketAlertCore
import MarketAlertKit

extension ExchangeID {
    package static let coinone: ExchangeID = "coinone"
}

/// Coinone (KRW markets). REST: `/public/v2/ticker_new/KRW`, every KRW market with its best bid and ask in
/// one answer. ccxt paces Coinone's public API at 20 requests a second (`rateLimit` 50 ms); a bulk poll every
/// 250 ms stays far under it.
package enum CoinoneExchange {
    package static let descriptor = ExchangeDescriptor(
        catalog: .constant(.coinone, rest: "https://api.coinone.co.kr", stream: "wss://stream.coinone.co.kr", minimumPollInterval: .milliseconds(250), takerFeePct: 0.2),
        marketID: CoinoneTickerSource.marketID,
        makeQuoteSource: { CoinoneTickerSource(settings: $0, fetcher: $1) },
        decodeTickers: { body, watched, at throws(SourceError) in try CoinoneTickerSource.decode(body, watched: watched, receivedAt: at) },
        stream: CoinoneStream(),
        wire: CoinoneWire.kit,
        marketList: { CoinoneMarketList(client: $0) },
        volumes: { CoinoneVolumes(client: $0) },
        transferStatus: CoinoneTransferStatus.adapter)
}
