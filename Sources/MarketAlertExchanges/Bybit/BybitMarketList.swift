import Foundation
import MarketAlertCore
import MarketAlertKit

/// Bybit's market list: `GET /v5/market/instruments-info?category=spot`, `result.list[]` with `symbol`
/// (`BTCUSDT`), `baseCoin`, `quoteCoin` and `status`; only `Trading` symbols count as listed. Bybit documents
/// spot as unpaged (one answer, `nextPageCursor` empty); should a cursor come back anyway it is followed, up to
/// `maxPages` requests, so a partial first page is never taken for the whole list.
package struct BybitMarketList: MarketListSource {
    package let client: ExchangeClient
    package var exchange: ExchangeID { client.exchange }

    static let path = "/v5/market/instruments-info"
    static let maxPages = 10

    package func fetchMarkets() async throws(SourceError) -> [ListedMarket] {
        var markets: [ListedMarket] = []
        var cursor: String?
        for _ in 0..<Self.maxPages {
            var query = [("category", "spot")]
            if let cursor { query += [("limit", "1000"), ("cursor", cursor)] }
            let body = try await client.get(Self.path, query: query) { _, body in BybitTickerSource.apiError(in: body) }
            let page = try Self.decodePage(body.body, source: exchange.rawValue)
            markets += page.markets
            guard let next = page.nextCursor else { return try Self.nonEmpty(markets, exchange: exchange) }
            cursor = next
        }
        throw SourceError(
            source: exchange.rawValue, kind: .decode, message: "\(Self.path) still paged after \(Self.maxPages) pages (a partial list)")
    }

    package static func decode(_ body: Data, exchange: ExchangeID) throws(SourceError) -> [ListedMarket] {
        let page = try decodePage(body, source: exchange.rawValue)
        guard page.nextCursor == nil else {
            throw SourceError(source: exchange.rawValue, kind: .decode, message: "\(path): one page of several (a partial list)")
        }
        return try nonEmpty(page.markets, exchange: exchange)
    }

    static func decodePage(_ body: Data, source: String) throws(SourceError) -> (markets: [ListedMarket], nextCursor: String?) {
        let page = try BybitListEnvelope<Instrument>.page(body, source: source)
        let markets = page.rows.compactMap { row -> ListedMarket? in
            guard row.status == "Trading" else { return nil }
            return ListedMarket.row(market: row.symbol, asset: row.baseCoin, quote: row.quoteCoin)
        }
        return (markets, page.nextCursor)
    }

    private static func nonEmpty(_ markets: [ListedMarket], exchange: ExchangeID) throws(SourceError) -> [ListedMarket] {
        guard !markets.isEmpty else { throw MarketListSources.emptyError(exchange, path: path) }
        return markets
    }

    struct Instrument: Decodable {
        var symbol: String?
        var baseCoin: String?
        var quoteCoin: String?
        var status: String?
    }
}
