import Foundation
import MarketAlertCore
import MarketAlertKit

/// Gate API v4: `GET /api/v4/spot/tickers`, a JSON array of every spot pair
/// (`{"currency_pair":"BTC_USDT","last","lowest_ask","highest_bid",…}`, decimal strings). Only the watched
/// rows are decoded. The rows carry no time: quotes take their receive time. Failures are
/// `{"label":"INVALID_CURRENCY_PAIR","message":"…"}` with a 4xx status.
package struct GateTickerSource: QuoteSource {
    package var exchange: ExchangeID { .gate }
    package let client: ExchangeClient

    package init(settings: ExchangeSettings, fetcher: HTTPFetcher) {
        client = ExchangeClient(exchange: .gate, settings: settings, fetcher: fetcher)
    }

    package static let path = "/api/v4/spot/tickers"

    /// `BTC_USDT`.
    package static func currencyPair(_ pair: MarketPair) -> String { "\(pair.base)_\(pair.quote)".uppercased() }

    package func fetchQuotes(for pairs: Set<MarketPair>) async throws(SourceError) -> [Quote] {
        try await client.fetchQuotes(for: pairs, path: Self.path, apiError: { Self.apiError(in: $1) }, decode: Self.decode)
    }

    /// Decodes a `/api/v4/spot/tickers` body; an `{"label":…}` object is `.api`.
    package static func decode(_ body: Data, watched: Set<MarketPair>, receivedAt: Date) throws(SourceError) -> [Quote] {
        let source = ExchangeID.gate.rawValue
        if ExchangeJSON.firstSignificantByte(body) == UInt8(ascii: "{") {
            throw apiError(in: body) ?? SourceError(source: source, kind: .decode, message: "expected a JSON array of tickers, got an object")
        }
        var collector = QuoteCollector(exchange: .gate, receivedAt: receivedAt, pairs: watched, marketID: currencyPair)
        let pruned = try ExchangeJSON.prune(body, source: source, listPath: [], keyField: "currency_pair", keep: collector.isWatched)
        let rows = try ExchangeJSON.decode([Ticker].self, from: pruned.document, source: source)
        collector.listCount = pruned.elementCount ?? rows.count
        for row in rows {
            collector.add(market: row.currency_pair, last: row.last, bid: row.highest_bid, ask: row.lowest_ask)
        }
        return try collector.finish()
    }

    package static func apiError(in body: Data) -> SourceError? {
        guard let error = try? JSONDecoder().decode(ErrorBody.self, from: body) else { return nil }
        return SourceError(source: ExchangeID.gate.rawValue, kind: .api, message: "\(error.label): \(error.message ?? "")")
    }

    package struct Ticker: Decodable {
        package var currency_pair: String
        package var last: WirePrice?
        package var lowest_ask: WirePrice?
        package var highest_bid: WirePrice?
    }

    package struct ErrorBody: Decodable {
        package var label: String
        package var message: String?
    }
}
