import Foundation
import MarketAlertCore
import MarketAlertKit

/// KuCoin spot: `GET /api/v1/market/allTickers`, every pair in one answer
/// (`{"code":"200000","data":{"time":…,"ticker":[{"symbol":"BTC-USDT","buy","sell","last",…}]}}`). `buy` is
/// the best bid and `sell` the best ask (decimal strings); the rows carry no time, so quotes take the
/// envelope's `time` (ms). Only the watched rows are decoded. Any other `code` is `.api` (also in 4xx bodies:
/// `{"code":"400100","msg":"…"}`).
package struct KuCoinTickerSource: QuoteSource {
    package var exchange: ExchangeID { .kucoin }
    package let client: ExchangeClient

    package init(settings: ExchangeSettings, fetcher: HTTPFetcher) {
        client = ExchangeClient(exchange: .kucoin, settings: settings, fetcher: fetcher)
    }

    package static let path = "/api/v1/market/allTickers"

    /// `BTC-USDT`.
    package static func symbol(_ pair: MarketPair) -> String { "\(pair.base)-\(pair.quote)".uppercased() }

    package func fetchQuotes(for pairs: Set<MarketPair>) async throws(SourceError) -> [Quote] {
        try await client.fetchQuotes(for: pairs, path: Self.path, apiError: { Self.apiError(in: $1) }, decode: Self.decode)
    }

    package static func decode(_ body: Data, watched: Set<MarketPair>, receivedAt: Date) throws(SourceError) -> [Quote] {
        let source = ExchangeID.kucoin.rawValue
        var collector = QuoteCollector(exchange: .kucoin, receivedAt: receivedAt, pairs: watched, marketID: symbol)
        let pruned = try ExchangeJSON.prune(body, source: source, listPath: ["data", "ticker"], keyField: "symbol", keep: collector.isWatched)
        let envelope = try ExchangeJSON.decode(Envelope.self, from: pruned.document, source: source)
        if let error = envelope.error { throw error }
        guard let rows = envelope.data?.ticker else {
            throw SourceError(source: source, kind: .decode, message: "data.ticker: missing")
        }
        collector.listCount = pruned.elementCount ?? rows.count
        for row in rows {
            collector.add(market: row.symbol, last: row.last, bid: row.buy, ask: row.sell, exchangeTime: envelope.data?.time?.date)
        }
        return try collector.finish()
    }

    package static func apiError(in body: Data) -> SourceError? {
        (try? JSONDecoder().decode(Envelope.self, from: body))?.error
    }

    package struct Envelope: Decodable {
        package var code: WireCode
        package var msg: String?
        package var data: Payload?

        package struct Payload: Decodable {
            package var time: WireMillis?
            package var ticker: [Ticker]?
        }

        package var error: SourceError? {
            guard code.text != "200000" else { return nil }
            return SourceError(source: ExchangeID.kucoin.rawValue, kind: .api, message: "code \(code.text): \(msg ?? "")")
        }
    }

    package struct Ticker: Decodable {
        package var symbol: String
        package var buy: WirePrice?
        package var sell: WirePrice?
        package var last: WirePrice?
    }
}
