import Foundation
import MarketAlertCore

/// Bybit v5 spot: `GET /v5/market/tickers?category=spot`. The endpoint filters by one `symbol` at most, so
/// one unfiltered request serves every watched market; only the watched rows are decoded. Bybit has no
/// per-ticker time: quotes carry the envelope's `time` (ms).
package struct BybitTickerSource: QuoteSource {
    package var exchange: ExchangeID { .bybit }
    let client: ExchangeClient

    package init(settings: ExchangeSettings, fetcher: HTTPFetcher) {
        client = ExchangeClient(exchange: .bybit, settings: settings, fetcher: fetcher)
    }

    /// `BTCUSDT` (spot and linear share ids; the request's `category` tells them apart).
    package static func symbol(_ pair: MarketPair) -> String { (pair.base + pair.quote).uppercased() }

    package func fetchQuotes(for pairs: Set<MarketPair>) async throws(SourceError) -> [Quote] {
        try await client.fetchQuotes(
            for: pairs, path: "/v5/market/tickers", query: [("category", "spot")], apiError: { Self.apiError(in: $1) },
            decode: Self.decode)
    }

    /// Decodes a `/v5/market/tickers` body; `retCode != 0` is `.api`.
    package static func decode(_ body: Data, watched: Set<MarketPair>, receivedAt: Date) throws(SourceError) -> [Quote] {
        let source = ExchangeID.bybit.rawValue
        var collector = QuoteCollector(exchange: .bybit, receivedAt: receivedAt, pairs: watched, marketID: symbol)
        let pruned = try ExchangeJSON.prune(body, source: source, listPath: ["result", "list"], keyField: "symbol", keep: collector.isWatched)
        let envelope = try ExchangeJSON.decode(Envelope.self, from: pruned.document, source: source)
        if let error = envelope.error { throw error }
        guard let list = envelope.result?.list else {
            throw SourceError(source: source, kind: .decode, message: "result.list: missing")
        }
        collector.listCount = pruned.elementCount ?? list.count
        for row in list {
            collector.add(
                market: row.symbol, last: row.lastPrice, bid: row.bid1Price, ask: row.ask1Price,
                exchangeTime: envelope.time?.date)
        }
        return try collector.finish()
    }

    static func apiError(in body: Data) -> SourceError? {
        (try? JSONDecoder().decode(Envelope.self, from: body))?.error
    }

    struct Envelope: Decodable {
        var retCode: WireCode
        var retMsg: String?
        var result: Result?
        var time: WireMillis?

        struct Result: Decodable {
            var list: [Ticker]?
        }

        var error: SourceError? {
            guard retCode.text != "0" else { return nil }
            return SourceError(source: ExchangeID.bybit.rawValue, kind: .api, message: "retCode \(retCode.text): \(retMsg ?? "")")
        }
    }

    struct Ticker: Decodable {
        var symbol: String
        var lastPrice: WirePrice?
        var bid1Price: WirePrice?
        var ask1Price: WirePrice?
    }
}
