import Foundation
import MarketAlertCore
import MarketAlertKit

/// Gate's market list: `GET /api/v4/spot/currency_pairs`, a JSON array of every spot pair
/// (`{"id":"QTUM_ETH","base":"QTUM","quote":"ETH","trade_status":"tradable",…}`, no paging). Only `tradable`
/// pairs count as listed (`untradable`, `buyable` and `sellable` are halted or winding down). The market id
/// is the ticker's `currency_pair` (`BTC_USDT`). Failures are `{"label":…,"message":…}`.
package struct GateMarketList: MarketListSource {
    package let client: ExchangeClient
    package var exchange: ExchangeID { client.exchange }

    static let path = "/api/v4/spot/currency_pairs"

    package func fetchMarkets() async throws(SourceError) -> [ListedMarket] {
        let body = try await client.get(Self.path) { _, body in GateTickerSource.apiError(in: body) }
        return try Self.decode(body.body, exchange: exchange)
    }

    struct Pair: Decodable {
        var id: String?
        var base: String?
        var quote: String?
        var trade_status: String?
    }

    /// Decodes a `/api/v4/spot/currency_pairs` body; an `{"label":…}` object is `.api`, no tradable pair `.empty`.
    package static func decode(_ body: Data, exchange: ExchangeID) throws(SourceError) -> [ListedMarket] {
        if ExchangeJSON.firstSignificantByte(body) == UInt8(ascii: "{") {
            throw GateTickerSource.apiError(in: body)
                ?? SourceError(source: exchange.rawValue, kind: .decode, message: "\(path): expected a JSON array of pairs, got an object")
        }
        let rows = try ExchangeJSON.decode([Pair].self, from: body, source: exchange.rawValue)
        let markets = rows.compactMap { row -> ListedMarket? in
            guard row.trade_status == "tradable" else { return nil }
            return ListedMarket.row(market: row.id?.uppercased(), asset: row.base, quote: row.quote)
        }
        guard !markets.isEmpty else { throw MarketListSources.emptyError(exchange, path: path) }
        return markets
    }
}
