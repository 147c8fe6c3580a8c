import Foundation
import MarketAlertCore
import MarketAlertKit

/// Bybit v5 spot: `GET /v5/market/tickers?category=spot`. The endpoint filters by one `symbol` at most, so
/// one unfiltered request serves every watched market; only the watched rows are decoded. Bybit has no
/// per-ticker time: quotes carry the envelope's `time` (ms).
package struct BybitTickerSource: QuoteSource {
    package var exchange: ExchangeID { .bybit }
    package let client: ExchangeClient

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
        if flatList.collect(body, into: &collector) { return try collector.finish() }
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

    package static func apiError(in body: Data) -> SourceError? {
        (try? JSONDecoder().decode(Envelope.self, from: body))?.error
    }

    /// The quick read of an ordinary answer (`decode` falls back to the pruned `Envelope` for any other).
    package static let flatList = FlatTickerList(
        path: ["result", "list"], success: (field: "retCode", code: "0"), market: "symbol", last: ["lastPrice"],
        bid: "bid1Price", ask: "ask1Price", rootTime: "time")

    package struct Envelope: Decodable {
        package var retCode: WireCode
        package var retMsg: String?
        package var result: Result?
        package var time: WireMillis?

        package struct Result: Decodable {
            package var list: [Ticker]?
        }

        package var error: SourceError? {
            guard retCode.text != "0" else { return nil }
            return SourceError(source: ExchangeID.bybit.rawValue, kind: .api, message: "retCode \(retCode.text): \(retMsg ?? "")")
        }
    }

    package struct Ticker: Decodable {
        package var symbol: String
        package var lastPrice: WirePrice?
        package var bid1Price: WirePrice?
        package var ask1Price: WirePrice?
    }
}
