import Foundation
import MarketAlertCore
import MarketAlertKit

/// Binance's market list: `GET /api/v3/exchangeInfo?symbolStatus=TRADING&showPermissionSets=false` (request
/// weight 20), `symbols[]` with `symbol`, `status`, `baseAsset`, `quoteAsset`. Only `TRADING` symbols count as
/// listed (`BREAK` is a halted or delisted one); both parameters are documented (Binance spot REST API,
/// general endpoints) and keep the body small: the whole list with permission sets runs to megabytes.
package struct BinanceMarketList: MarketListSource {
    package let client: ExchangeClient
    package var exchange: ExchangeID { client.exchange }

    static let path = "/api/v3/exchangeInfo"
    static let query = [("symbolStatus", "TRADING"), ("showPermissionSets", "false")]

    package func fetchMarkets() async throws(SourceError) -> [ListedMarket] {
        let body = try await client.get(Self.path, query: Self.query) { _, body in BinanceTickerSource.apiError(in: body) }
        return try Self.decode(body.body, exchange: exchange)
    }

    struct Info: Decodable {
        var symbols: [Symbol]
    }

    struct Symbol: Decodable {
        var symbol: String
        var status: String
        var baseAsset: String
        var quoteAsset: String
    }

    package static func decode(_ body: Data, exchange: ExchangeID) throws(SourceError) -> [ListedMarket] {
        let info = try ExchangeJSON.decode(Info.self, from: body, source: exchange.rawValue)
        let markets = info.symbols.compactMap { row -> ListedMarket? in
            guard row.status == "TRADING", !row.baseAsset.isEmpty, !row.quoteAsset.isEmpty else { return nil }
            return ListedMarket(market: row.symbol, asset: row.baseAsset.uppercased(), quote: row.quoteAsset.uppercased())
        }
        guard !markets.isEmpty else { throw MarketListSources.emptyError(exchange, path: path) }
        return markets
    }
}
