import Foundation
import MarketAlertCore
import MarketAlertKit

/// Upbit's market list: `GET /v1/market/all`, a JSON array of `{"market": "KRW-BTC", "korean_name", …}`
/// (`QUOTE-BASE`; KRW, BTC and USDT markets in one list). Bithumb's v1 API answers the same path alike.
package struct UpbitMarketList: MarketListSource {
    package let client: ExchangeClient
    package var exchange: ExchangeID { client.exchange }

    static let path = "/v1/market/all"

    package func fetchMarkets() async throws(SourceError) -> [ListedMarket] {
        let body = try await client.get(Self.path) { UpbitTickerSource.apiError(in: $1, status: $0) }
        return try Self.decode(body.body, exchange: exchange)
    }

    /// Decodes a `/v1/market/all` body; rows whose code is not `QUOTE-BASE` are skipped.
    package static func decode(_ body: Data, exchange: ExchangeID) throws(SourceError) -> [ListedMarket] {
        if ExchangeJSON.firstSignificantByte(body) == UInt8(ascii: "{") {
            throw UpbitTickerSource.apiError(in: body, status: 200)
                ?? SourceError(source: exchange.rawValue, kind: .decode, message: "expected a JSON array of markets, got an object")
        }
        let rows = try ExchangeJSON.decode([UpbitTickerSource.ListedMarket].self, from: body, source: exchange.rawValue)
        let markets = rows.compactMap { row -> ListedMarket? in
            let parts = row.market.split(separator: "-", maxSplits: 1)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, row.market.count <= 40 else { return nil }
            return ListedMarket(market: row.market, asset: String(parts[1]).uppercased(), quote: String(parts[0]).uppercased())
        }
        guard !markets.isEmpty else { throw MarketListSources.emptyError(exchange, path: path) }
        return markets
    }
}
