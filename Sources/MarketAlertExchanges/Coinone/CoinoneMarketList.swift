import Foundation
import MarketAlertCore
import MarketAlertKit

/// Coinone's market list: the KRW tickers, `GET /public/v2/ticker_new/KRW`, one row per KRW market
/// (`target_currency` `btc`, `quote_currency` `krw`). Coinone's public API also has `/public/v2/markets/KRW`,
/// but no recorded answer of it was found to check its shape against; the ticker list is what ccxt's
/// `fetch_markets` reads too. The market id is the base (`BTC`), as the ticker source keys KRW markets.
/// Failures are `{"result":"error","error_code":…,"error_msg":…}`.
package struct CoinoneMarketList: MarketListSource {
    package let client: ExchangeClient
    package var exchange: ExchangeID { client.exchange }

    static var path: String { CoinoneTickerSource.path }

    package func fetchMarkets() async throws(SourceError) -> [ListedMarket] {
        let body = try await client.get(Self.path) { _, body in CoinoneTickerSource.apiError(in: body) }
        return try Self.decode(body.body, exchange: exchange)
    }

    struct Row: Decodable {
        var target_currency: String?
        var quote_currency: String?
    }

    /// Decodes a `/public/v2/ticker_new/KRW` body; `result != "success"` is `.api`, no market `.empty`.
    package static func decode(_ body: Data, exchange: ExchangeID) throws(SourceError) -> [ListedMarket] {
        let rows = try CoinoneRows.decode(Row.self, from: body, source: exchange.rawValue, path: path)
        let markets = rows.compactMap { row -> ListedMarket? in
            guard let base = row.target_currency?.uppercased(), row.quote_currency?.uppercased() == "KRW" else { return nil }
            return ListedMarket.row(market: base, asset: base, quote: "KRW")
        }
        guard !markets.isEmpty else { throw MarketListSources.emptyError(exchange, path: path) }
        return markets
    }
}

/// Coinone's `{"result":"success","error_code":"0","tickers":[rows]}` envelope for the whole-market reads:
/// `result` other than `success` is `.api`, missing `tickers` `.decode`.
enum CoinoneRows {
    struct Envelope<Row: Decodable>: Decodable {
        var result: String
        var error_code: WireCode?
        var error_msg: String?
        var tickers: [Row]?
    }

    static func decode<Row: Decodable>(_ row: Row.Type, from body: Data, source: String, path: String) throws(SourceError) -> [Row] {
        let envelope = try ExchangeJSON.decode(Envelope<Row>.self, from: body, source: source)
        guard envelope.result == "success" else {
            throw SourceError(
                source: source, kind: .api, message: "error_code \(envelope.error_code?.text ?? "?"): \(envelope.error_msg ?? envelope.result)")
        }
        guard let rows = envelope.tickers else { throw SourceError(source: source, kind: .decode, message: "\(path): tickers: missing") }
        return rows
    }
}
