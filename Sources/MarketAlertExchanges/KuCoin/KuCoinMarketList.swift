import Foundation
import MarketAlertCore
import MarketAlertKit

/// KuCoin's market list: `GET /api/v2/symbols` (every spot symbol in one answer), `{"code":"200000","data":[…]}`
/// with rows `{"symbol":"XLM-USDT","baseCurrency":"XLM","quoteCurrency":"USDT","enableTrading":true,…}`. Only
/// symbols with `enableTrading: true` count as listed. Any other `code` is `.api` (as the ticker source reads it).
package struct KuCoinMarketList: MarketListSource {
    package let client: ExchangeClient
    package var exchange: ExchangeID { client.exchange }

    static let path = "/api/v2/symbols"

    package func fetchMarkets() async throws(SourceError) -> [ListedMarket] {
        let body = try await client.get(Self.path) { _, body in KuCoinTickerSource.apiError(in: body) }
        return try Self.decode(body.body, exchange: exchange)
    }

    struct Envelope: Decodable {
        var code: WireCode
        var msg: String?
        var data: [Symbol]?
    }

    struct Symbol: Decodable {
        var symbol: String?
        var baseCurrency: String?
        var quoteCurrency: String?
        var enableTrading: Bool?
    }

    /// Decodes a `/api/v2/symbols` body; `code != "200000"` is `.api`, no tradable symbol `.empty`.
    package static func decode(_ body: Data, exchange: ExchangeID) throws(SourceError) -> [ListedMarket] {
        let envelope = try ExchangeJSON.decode(Envelope.self, from: body, source: exchange.rawValue)
        guard envelope.code.text == "200000" else {
            throw SourceError(source: exchange.rawValue, kind: .api, message: "code \(envelope.code.text): \(envelope.msg ?? "")")
        }
        guard let rows = envelope.data else {
            throw SourceError(source: exchange.rawValue, kind: .decode, message: "\(path): data: missing")
        }
        let markets = rows.compactMap { row -> ListedMarket? in
            guard row.enableTrading == true else { return nil }
            return ListedMarket.row(market: row.symbol, asset: row.baseCurrency, quote: row.quoteCurrency)
        }
        guard !markets.isEmpty else { throw MarketListSources.emptyError(exchange, path: path) }
        return markets
    }
}
