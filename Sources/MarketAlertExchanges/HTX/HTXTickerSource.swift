import Foundation
import MarketAlertCore
import MarketAlertKit

/// HTX spot: `GET /market/tickers` (every spot symbol in one answer, ids `btcusdt`). Rows carry `close`
/// (the last price), `bid` and `ask` as JSON numbers (`5.126E-5` too) and no time of their own: quotes
/// carry the envelope's `ts` (ms). Failures are `{"status":"error","err-code":…,"err-msg":…}`.
package struct HTXTickerSource: QuoteSource {
    package var exchange: ExchangeID { .htx }
    package let client: ExchangeClient

    package init(settings: ExchangeSettings, fetcher: HTTPFetcher) {
        client = ExchangeClient(exchange: .htx, settings: settings, fetcher: fetcher)
    }

    /// `btcusdt`.
    package static func symbol(_ pair: MarketPair) -> String { (pair.base + pair.quote).lowercased() }

    package func fetchQuotes(for pairs: Set<MarketPair>) async throws(SourceError) -> [Quote] {
        try await client.fetchQuotes(for: pairs, path: "/market/tickers", apiError: { Self.apiError(in: $1) }, decode: Self.decode)
    }

    /// Decodes a `/market/tickers` body; `status` other than `ok` is `.api`.
    package static func decode(_ body: Data, watched: Set<MarketPair>, receivedAt: Date) throws(SourceError) -> [Quote] {
        let source = ExchangeID.htx.rawValue
        var collector = QuoteCollector(exchange: .htx, receivedAt: receivedAt, pairs: watched, marketID: symbol)
        let pruned = try ExchangeJSON.prune(body, source: source, listPath: ["data"], keyField: "symbol", keep: collector.isWatched)
        let envelope = try ExchangeJSON.decode(Envelope.self, from: pruned.document, source: source)
        if let error = envelope.error { throw error }
        guard let list = envelope.data else {
            throw SourceError(source: source, kind: .decode, message: "data: missing")
        }
        collector.listCount = pruned.elementCount ?? list.count
        for row in list {
            collector.add(market: row.symbol, last: row.close, bid: row.bid, ask: row.ask, exchangeTime: envelope.ts?.date)
        }
        return try collector.finish()
    }

    package static func apiError(in body: Data) -> SourceError? {
        (try? JSONDecoder().decode(Envelope.self, from: body))?.error
    }

    package struct Envelope: Decodable {
        package var status: String
        package var errCode: String?
        package var errMsg: String?
        package var data: [Ticker]?
        package var ts: WireMillis?

        enum CodingKeys: String, CodingKey {
            case status, data, ts
            case errCode = "err-code"
            case errMsg = "err-msg"
        }

        package var error: SourceError? {
            guard status != "ok" else { return nil }
            return SourceError(source: ExchangeID.htx.rawValue, kind: .api, message: "\(errCode ?? status): \(errMsg ?? "")")
        }
    }

    package struct Ticker: Decodable {
        package var symbol: String
        package var close: WirePrice?
        package var bid: WirePrice?
        package var ask: WirePrice?
    }
}
