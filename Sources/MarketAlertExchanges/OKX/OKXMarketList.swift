import Foundation
import MarketAlertCore
import MarketAlertKit

/// OKX's market list: `GET /api/v5/public/instruments?instType=SPOT` (every spot instrument in one answer, no
/// paging; 20 requests per 2 s), `data[]` with `instId` (`BTC-USDT`), `baseCcy`, `quoteCcy` and `state`. Only
/// `live` instruments count as listed (`suspend`, `preopen`, `test` do not).
package struct OKXMarketList: MarketListSource {
    package let client: ExchangeClient
    package var exchange: ExchangeID { client.exchange }

    static let path = "/api/v5/public/instruments"
    static let query = [("instType", "SPOT")]

    package func fetchMarkets() async throws(SourceError) -> [ListedMarket] {
        let body = try await client.get(Self.path, query: Self.query) { _, body in
            OKXTickerSource.envelope.apiError(in: body, rows: Instrument.self)
        }
        return try Self.decode(body.body, exchange: exchange)
    }

    struct Instrument: Decodable {
        var instId: String?
        var baseCcy: String?
        var quoteCcy: String?
        var state: String?
    }

    /// Decodes a `/api/v5/public/instruments` body; `code != "0"` is `.api`, no live instrument `.empty`.
    package static func decode(_ body: Data, exchange: ExchangeID) throws(SourceError) -> [ListedMarket] {
        let rows = try OKXTickerSource.envelope.allRows(Instrument.self, in: body)
        let markets = rows.compactMap { row -> ListedMarket? in
            guard row.state == "live" else { return nil }
            return ListedMarket.row(market: row.instId, asset: row.baseCcy, quote: row.quoteCcy)
        }
        guard !markets.isEmpty else { throw MarketListSources.emptyError(exchange, path: path) }
        return markets
    }
}
