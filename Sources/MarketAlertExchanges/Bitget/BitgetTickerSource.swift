import Foundation
import MarketAlertCore
import MarketAlertKit

/// Bitget v2 spot: `GET /api/v2/spot/market/tickers` (every spot market in one answer; the optional `symbol`
/// filter takes one symbol only). Only the watched rows are decoded; `ts` (ms, a string) is the quote time.
package struct BitgetTickerSource: QuoteSource {
    package var exchange: ExchangeID { .bitget }
    package let client: ExchangeClient

    package init(settings: ExchangeSettings, fetcher: HTTPFetcher) {
        client = ExchangeClient(exchange: .bitget, settings: settings, fetcher: fetcher)
    }

    /// `BTCUSDT`.
    package static func symbol(_ pair: MarketPair) -> String { (pair.base + pair.quote).uppercased() }

    package func fetchQuotes(for pairs: Set<MarketPair>) async throws(SourceError) -> [Quote] {
        try await client.fetchQuotes(
            for: pairs, path: "/api/v2/spot/market/tickers", apiError: { Self.envelope.apiError(in: $1, rows: Ticker.self) },
            decode: Self.decode)
    }

    /// Decodes a `/api/v2/spot/market/tickers` body; `code != "00000"` is `.api` (its `data` is `null`).
    package static func decode(_ body: Data, watched: Set<MarketPair>, receivedAt: Date) throws(SourceError) -> [Quote] {
        var collector = QuoteCollector(exchange: .bitget, receivedAt: receivedAt, pairs: watched, marketID: symbol)
        if flatList.collect(body, into: &collector) { return try collector.finish() }
        for row in try envelope.watchedRows(Ticker.self, in: body, collector: &collector) {
            collector.add(market: row.symbol, last: row.lastPr, bid: row.bidPr, ask: row.askPr, exchangeTime: row.ts?.date)
        }
        return try collector.finish()
    }

    package static let envelope = CodeMessageEnvelope(exchange: .bitget, successCode: "00000", marketField: "symbol")
    /// The quick read of an ordinary answer (`decode` falls back to `envelope` for any other).
    package static let flatList = FlatTickerList(
        path: ["data"], success: (field: "code", code: "00000"), market: "symbol", last: ["lastPr"], bid: "bidPr", ask: "askPr",
        time: ["ts"])

    package struct Ticker: Decodable {
        package var symbol: String
        package var lastPr: WirePrice?
        package var bidPr: WirePrice?
        package var askPr: WirePrice?
        package var ts: WireMillis?
    }
}
