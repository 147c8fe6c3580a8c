import Foundation
import MarketAlertCore
import MarketAlertKit

/// Bitget's market list: `GET /api/v2/spot/public/symbols` (every spot symbol in one answer), `data[]` with
/// `symbol` (`BTCUSDT`), `baseCoin`, `quoteCoin` and `status`; only `online` symbols count as listed (`gray`,
/// `halt` and `offline` do not).
package struct BitgetMarketList: MarketListSource {
    package let client: ExchangeClient
    package var exchange: ExchangeID { client.exchange }

    static let path = "/api/v2/spot/public/symbols"

    package func fetchMarkets() async throws(SourceError) -> [ListedMarket] {
        let body = try await client.get(Self.path) { _, body in BitgetTickerSource.envelope.apiError(in: body, rows: Symbol.self) }
        return try Self.decode(body.body, exchange: exchange)
    }

    struct Symbol: Decodable {
        var symbol: String?
        var baseCoin: String?
        var quoteCoin: String?
        var status: String?
    }

    /// Decodes a `/api/v2/spot/public/symbols` body; `code != "00000"` is `.api`, no online symbol `.empty`.
    package static func decode(_ body: Data, exchange: ExchangeID) throws(SourceError) -> [ListedMarket] {
        let rows = try BitgetTickerSource.envelope.allRows(Symbol.self, in: body)
        let markets = rows.compactMap { row -> ListedMarket? in
            guard row.status == "online" else { return nil }
            return ListedMarket.row(market: row.symbol, asset: row.baseCoin, quote: row.quoteCoin)
        }
        guard !markets.isEmpty else { throw MarketListSources.emptyError(exchange, path: path) }
        return markets
    }
}
