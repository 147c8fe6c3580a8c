import Foundation
import MarketAlertCore
import MarketAlertKit

/// Coinbase Exchange's market list: `GET /products` (every product in one answer), rows with `id` (`BTC-USD`),
/// `base_currency`, `quote_currency`, `status` and `trading_disabled`. A product counts as listed when it is
/// `online`, not `trading_disabled`, and its id is `BASE-QUOTE` (the auction and other special products,
/// `BTCAUCTION-USD`, share a base and quote with the real market and are left out).
package struct CoinbaseMarketList: MarketListSource {
    package let client: ExchangeClient
    package var exchange: ExchangeID { client.exchange }

    static let path = "/products"

    package func fetchMarkets() async throws(SourceError) -> [ListedMarket] {
        let body = try await client.get(Self.path) { status, body in Self.apiError(in: body, status: status) }
        return try Self.decode(body.body, exchange: exchange)
    }

    struct Product: Decodable {
        var id: String?
        var base_currency: String?
        var quote_currency: String?
        var status: String?
        var trading_disabled: Bool?
    }

    /// Decodes a `/products` body; an object (`{"message": …}`) is `.api`, no online product `.empty`.
    package static func decode(_ body: Data, exchange: ExchangeID) throws(SourceError) -> [ListedMarket] {
        if ExchangeJSON.firstSignificantByte(body) == UInt8(ascii: "{") {
            throw apiError(in: body, status: 200)
                ?? SourceError(source: exchange.rawValue, kind: .decode, message: "\(path): expected a JSON array of products, got an object")
        }
        let rows = try ExchangeJSON.decode([Product].self, from: body, source: exchange.rawValue)
        let markets = rows.compactMap { row -> ListedMarket? in
            guard row.status == "online", row.trading_disabled != true,
                let market = ListedMarket.row(market: row.id, asset: row.base_currency, quote: row.quote_currency),
                market.market.uppercased() == "\(market.asset)-\(market.quote)"
            else { return nil }
            return market
        }
        guard !markets.isEmpty else { throw MarketListSources.emptyError(exchange, path: path) }
        return markets
    }

    /// `{"message": "…"}`, Coinbase's error body.
    static func apiError(in body: Data, status: Int) -> SourceError? {
        guard let message = (try? JSONDecoder().decode(Message.self, from: body))?.message else { return nil }
        return SourceError(source: ExchangeID.coinbase.rawValue, kind: .api, message: "\(path) (HTTP \(status)): \(message)")
    }

    private struct Message: Decodable {
        var message: String?
    }
}
