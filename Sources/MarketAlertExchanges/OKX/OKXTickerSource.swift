import Foundation
import MarketAlertCore
import MarketAlertKit

/// OKX v5 spot: `GET /api/v5/market/tickers?instType=SPOT` (every spot instrument in one answer; ids are
/// `BASE-QUOTE`). Only the watched rows are decoded; `ts` (ms, a string) is the quote time.
package struct OKXTickerSource: QuoteSource {
    package var exchange: ExchangeID { .okx }
    package let client: ExchangeClient

    package init(settings: ExchangeSettings, fetcher: HTTPFetcher) {
        client = ExchangeClient(exchange: .okx, settings: settings, fetcher: fetcher)
    }

    /// `BTC-USDT`.
    package static func instrumentID(_ pair: MarketPair) -> String { "\(pair.base)-\(pair.quote)".uppercased() }

    package func fetchQuotes(for pairs: Set<MarketPair>) async throws(SourceError) -> [Quote] {
        try await client.fetchQuotes(
            for: pairs, path: "/api/v5/market/tickers", query: [("instType", "SPOT")],
            apiError: { Self.envelope.apiError(in: $1, rows: Ticker.self) }, decode: Self.decode)
    }

    /// Decodes a `/api/v5/market/tickers` body; `code != "0"` is `.api`.
    package static func decode(_ body: Data, watched: Set<MarketPair>, receivedAt: Date) throws(SourceError) -> [Quote] {
        var collector = QuoteCollector(exchange: .okx, receivedAt: receivedAt, pairs: watched, marketID: instrumentID)
        if flatList.collect(body, into: &collector) { return try collector.finish() }
        for row in try envelope.watchedRows(Ticker.self, in: body, collector: &collector) {
            collector.add(market: row.instId, last: row.last, bid: row.bidPx, ask: row.askPx, exchangeTime: row.ts?.date)
        }
        return try collector.finish()
    }

    package static let envelope = CodeMessageEnvelope(exchange: .okx, successCode: "0", marketField: "instId")
    /// The quick read of an ordinary answer (`decode` falls back to `envelope` for any other).
    package static let flatList = FlatTickerList(
        path: ["data"], success: (field: "code", code: "0"), market: "instId", last: ["last"], bid: "bidPx", ask: "askPx",
        time: ["ts"])

    package struct Ticker: Decodable {
        package var instId: String
        package var last: WirePrice?
        package var bidPx: WirePrice?
        package var askPx: WirePrice?
        package var ts: WireMillis?
    }
}
