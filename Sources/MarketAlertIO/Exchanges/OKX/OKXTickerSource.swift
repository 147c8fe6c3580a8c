import Foundation
import MarketAlertCore

/// OKX v5 spot: `GET /api/v5/market/tickers?instType=SPOT` (every spot instrument in one answer; ids are
/// `BASE-QUOTE`). Only the watched rows are decoded; `ts` (ms, a string) is the quote time.
package struct OKXTickerSource: QuoteSource {
    package var exchange: ExchangeID { .okx }
    package let settings: ExchangeSettings
    package let fetcher: HTTPFetcher

    package init(settings: ExchangeSettings, fetcher: HTTPFetcher) {
        self.settings = settings
        self.fetcher = fetcher
    }

    /// `BTC-USDT`.
    package static func instrumentID(_ pair: MarketPair) -> String { "\(pair.base)-\(pair.quote)".uppercased() }

    package func fetchQuotes(for pairs: Set<MarketPair>) async throws(SourceError) -> [Quote] {
        guard !pairs.isEmpty else { return [] }
        let source = exchange.rawValue
        let url = try ExchangeEndpoint.url(settings.baseURL, path: "/api/v5/market/tickers", query: [("instType", "SPOT")], source: source)
        let body = try await fetcher.get(url, source: source, timeout: settings.timeout) { status, body in
            (400..<500).contains(status) ? Self.apiError(in: body) : nil
        }
        return try Self.decode(body.body, watched: pairs, receivedAt: body.receivedAt)
    }

    /// Decodes a `/api/v5/market/tickers` body; `code != "0"` is `.api`.
    package static func decode(_ body: Data, watched: Set<MarketPair>, receivedAt: Date) throws(SourceError) -> [Quote] {
        let source = ExchangeID.okx.rawValue
        var collector = QuoteCollector(exchange: .okx, receivedAt: receivedAt, pairs: watched, marketID: instrumentID)
        let pruned = try ExchangeJSON.prune(body, source: source, listPath: ["data"], keyField: "instId", keep: collector.isWatched)
        let envelope = try ExchangeJSON.decode(Envelope.self, from: pruned.document, source: source)
        if let error = envelope.error { throw error }
        guard let list = envelope.data else {
            throw SourceError(source: source, kind: .decode, message: "data: missing")
        }
        collector.listCount = pruned.elementCount ?? list.count
        for row in list {
            collector.add(market: row.instId, last: row.last?.price, bid: row.bidPx?.price, ask: row.askPx?.price, exchangeTime: row.ts?.date)
        }
        return try collector.finish()
    }

    static func apiError(in body: Data) -> SourceError? {
        (try? JSONDecoder().decode(Envelope.self, from: body))?.error
    }

    struct Envelope: Decodable {
        var code: WireCode
        var msg: String?
        var data: [Ticker]?

        var error: SourceError? {
            guard code.text != "0" else { return nil }
            return SourceError(source: ExchangeID.okx.rawValue, kind: .api, message: "code \(code.text): \(msg ?? "")")
        }
    }

    struct Ticker: Decodable {
        var instId: String
        var last: WirePrice?
        var bidPx: WirePrice?
        var askPx: WirePrice?
        var ts: WireMillis?
    }
}
