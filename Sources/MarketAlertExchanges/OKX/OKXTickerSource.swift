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
        for row in try envelope.watchedRows(Ticker.self, in: body, collector: &collector) {
            collector.add(market: row.instId, last: row.last, bid: row.bidPx, ask: row.askPx, exchangeTime: row.ts?.date)
        }
        return try collector.finish()
    }

    package static let envelope = CodeMessageEnvelope(exchange: .okx, successCode: "0", marketField: "instId")

    package struct Ticker: Decodable {
        package var instId: String
        package var last: WirePrice?
        package var bidPx: WirePrice?
        package var askPx: WirePrice?
        package var ts: WireMillis?
    }
}
