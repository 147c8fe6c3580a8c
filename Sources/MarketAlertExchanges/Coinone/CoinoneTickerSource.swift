import Foundation
import MarketAlertCore
import MarketAlertKit

/// Coinone public API v2: `GET /public/v2/ticker_new/KRW`, every KRW market in one answer
/// (`{"result":"success","error_code":"0","server_time":…,"tickers":[…]}`). A row names its market by
/// `target_currency` (the base, lower case in REST answers: `btc`) and `quote_currency` (`krw`); prices are
/// decimal strings; `best_bids` / `best_asks` hold the best level (`[{"price","qty"}]`); `timestamp` (ms) is
/// the quote time. Failures are `{"result":"error","error_code":"…","error_msg":"…"}`.
///
/// Coinone lists KRW markets only: the market id of a KRW pair is its base (`BTC`); any other pair gets an
/// id (`BTC-USDT`) that no Coinone answer carries, so it is reported as not in the response.
package struct CoinoneTickerSource: QuoteSource {
    package var exchange: ExchangeID { .coinone }
    package let client: ExchangeClient

    package init(settings: ExchangeSettings, fetcher: HTTPFetcher) {
        client = ExchangeClient(exchange: .coinone, settings: settings, fetcher: fetcher)
    }

    package static let path = "/public/v2/ticker_new/KRW"

    /// `BTC` for BTC/KRW; `BTC-USDT` (never listed) for a pair in another quote.
    package static func marketID(_ pair: MarketPair) -> String {
        pair.quote.uppercased() == "KRW" ? pair.base.uppercased() : "\(pair.base)-\(pair.quote)".uppercased()
    }

    package func fetchQuotes(for pairs: Set<MarketPair>) async throws(SourceError) -> [Quote] {
        try await client.fetchQuotes(for: pairs, path: Self.path, apiError: { Self.apiError(in: $1) }, decode: Self.decode)
    }

    /// Decodes a `/public/v2/ticker_new/KRW` body; `result != "success"` is `.api`.
    package static func decode(_ body: Data, watched: Set<MarketPair>, receivedAt: Date) throws(SourceError) -> [Quote] {
        let source = ExchangeID.coinone.rawValue
        var collector = QuoteCollector(exchange: .coinone, receivedAt: receivedAt, pairs: watched, marketID: marketID)
        let pruned = try ExchangeJSON.prune(
            body, source: source, listPath: ["tickers"], keyField: "target_currency", keep: { collector.isWatched($0.uppercased()) })
        let envelope = try ExchangeJSON.decode(Envelope.self, from: pruned.document, source: source)
        if let error = envelope.error { throw error }
        guard let rows = envelope.tickers else {
            throw SourceError(source: source, kind: .decode, message: "tickers: missing")
        }
        collector.listCount = pruned.elementCount ?? rows.count
        for row in rows where row.quote_currency.uppercased() == "KRW" {
            collector.add(
                market: row.target_currency.uppercased(), last: row.last, bid: row.best_bids?.first?.price,
                ask: row.best_asks?.first?.price, exchangeTime: row.timestamp?.date)
        }
        return try collector.finish()
    }

    package static func apiError(in body: Data) -> SourceError? {
        (try? JSONDecoder().decode(Envelope.self, from: body))?.error
    }

    package struct Envelope: Decodable {
        package var result: String
        package var error_code: WireCode?
        package var error_msg: String?
        package var tickers: [Ticker]?

        package var error: SourceError? {
            guard result != "success" else { return nil }
            return SourceError(
                source: ExchangeID.coinone.rawValue, kind: .api,
                message: "error_code \(error_code?.text ?? "?"): \(error_msg ?? result)")
        }
    }

    package struct Ticker: Decodable {
        package var quote_currency: String
        package var target_currency: String
        package var timestamp: WireMillis?
        package var last: WirePrice?
        package var best_asks: [Level]?
        package var best_bids: [Level]?
    }

    package struct Level: Decodable {
        package var price: WirePrice?
    }
}
