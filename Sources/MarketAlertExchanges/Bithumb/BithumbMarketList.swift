import Foundation
import MarketAlertCore
import MarketAlertKit

/// Bithumb's market list: `GET /v1/market/all` of its v1 API, the same shape as Upbit's
/// (`[{"market": "KRW-BTC", "korean_name", "english_name"}]`).
package struct BithumbMarketList: MarketListSource {
    package let client: ExchangeClient
    package var exchange: ExchangeID { client.exchange }

    package func fetchMarkets() async throws(SourceError) -> [ListedMarket] {
        let body = try await client.get(UpbitMarketList.path) { _, body in BithumbTickerSource.apiError(in: body) }
        return try UpbitMarketList.decode(body.body, exchange: exchange)
    }
}
