import Foundation
import MarketAlertCore

/// Bitget v2 spot: `GET /api/v2/spot/market/tickers` (every spot market in one answer; the optional `symbol`
/// filter takes one symbol only). Only the watched rows are decoded; `ts` (ms, a string) is the quote time.
package struct BitgetTickerSource: QuoteSource {
    package var exchange: ExchangeID { .bitget }
    package let settings: ExchangeSettings
    package let fetcher: HTTPFetcher

    package init(settings: ExchangeSettings, fetcher: HTTPFetcher) {
        self.settings = settings
        self.fetcher = fetcher
    }

    /// `BTCUSDT`.
    package static func symbol(_ pair: MarketPair) -> String { (pair.base + pair.quote).uppercased() }

    package func fetchQuotes(for pairs: Set<MarketPair>) async throws(SourceError) -> [Quote] {
        guard !pairs.isEmpty else { return [] }
        let source = exchange.rawValue
        let url = try ExchangeEndpoint.url(settings.baseURL, path: "/api/v2/spot/market/tickers", source: source)
        let body = try await fetcher.get(url, source: source, timeout: settings.timeout) { status, body in
            (400..<500).contains(status) ? Self.apiError(in: body) : nil
        }
        return try Self.decode(body.body, watched: pairs, receivedAt: body.receivedAt)
    }

    /// Decodes a `/api/v2/spot/market/tickers` body; `code != "00000"` is `.api` (its `data` is `null`).
    package static func decode(_ body: Data, watched: Set<MarketPair>, receivedAt: Date) throws(SourceError) -> [Quote] {
        let source = ExchangeID.bitget.rawValue
        var collector = QuoteCollector(exchange: .bitget, receivedAt: receivedAt, pairs: watched, marketID: symbol)
        let pruned = try ExchangeJSON.prune(body, source: source, listPath: ["data"], keyField: "symbol", keep: collector.isWatched)
        let envelope = try ExchangeJSON.decode(Envelope.self, from: pruned.document, source: source)
        if let error = envelope.error { throw error }
        guard let list = envelope.data else {
            throw SourceError(source: source, kind: .decode, message: "data: missing")
        }
        collector.listCount = pruned.elementCount ?? list.count
        for row in list {
            collector.add(market: row.symbol, last: row.lastPr?.price, bid: row.bidPr?.price, ask: row.askPr?.price, exchangeTime: row.ts?.date)
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
            guard code.text != "00000" else { return nil }
            return SourceError(source: ExchangeID.bitget.rawValue, kind: .api, message: "code \(code.text): \(msg ?? "")")
        }
    }

    struct Ticker: Decodable {
        var symbol: String
        var lastPr: WirePrice?
        var bidPr: WirePrice?
        var askPr: WirePrice?
        var ts: WireMillis?
    }
}
