import Foundation
import MarketAlertCore
import MarketAlertKit

/// Kraken: `GET /0/public/Ticker?pair=XBTUSD,ETHUSD`. The answer is keyed by Kraken's own pair names
/// (`XXBTZUSD`), mapped back to the watched pairs by `KrakenPairNames`; `c[0]` is the last trade, `b[0]` the
/// bid, `a[0]` the ask. Kraken sends no time, so quotes carry only the receive time.
///
/// Kraken fails the whole request (`EQuery:Unknown asset pair`) when one pair is unknown; the source then
/// reads every pair once (no `pair=`), remembers the unknown ones for an hour (`UnlistedMarkets`) and returns
/// what it found.
package struct KrakenTickerSource: QuoteSource {
    package var exchange: ExchangeID { .kraken }
    package let client: ExchangeClient
    package let unlisted: UnlistedMarkets

    package init(settings: ExchangeSettings, fetcher: HTTPFetcher) {
        self.init(settings: settings, fetcher: fetcher, unlisted: UnlistedMarkets())
    }

    package init(settings: ExchangeSettings, fetcher: HTTPFetcher, unlisted: UnlistedMarkets) {
        client = ExchangeClient(exchange: .kraken, settings: settings, fetcher: fetcher)
        self.unlisted = unlisted
    }

    package func fetchQuotes(for pairs: Set<MarketPair>) async throws(SourceError) -> [Quote] {
        guard !pairs.isEmpty else { return [] }
        let known = unlisted.unlisted(now: client.now())
        let requested = pairs.filter { !known.contains(KrakenPairNames.requestName($0)) }
        guard !requested.isEmpty else {
            throw unlisted.allUnlistedError(Set(pairs.map(KrakenPairNames.requestName)), source: exchange.rawValue)
        }
        let names = requested.map(KrakenPairNames.requestName).sorted().joined(separator: ",")
        do {
            let body = try await get(query: [("pair", names)])
            return try Self.decode(body.body, watched: requested, receivedAt: body.receivedAt)
        } catch let error where Self.isUnknownPair(error) {
            let body = try await get(query: [])
            let collector = try Self.collect(body.body, watched: requested, receivedAt: body.receivedAt)
            unlisted.record(collector.missing, now: body.receivedAt)
            return try collector.finish()
        }
    }

    private func get(query: [(String, String)]) async throws(SourceError) -> FetchedBody {
        try await client.get("/0/public/Ticker", query: query) { _, body in (try? JSONDecoder().decode(Envelope.self, from: body))?.error }
    }

    /// Decodes a `/0/public/Ticker` body; a non-empty `error` array is `.api`.
    package static func decode(_ body: Data, watched: Set<MarketPair>, receivedAt: Date) throws(SourceError) -> [Quote] {
        try collect(body, watched: watched, receivedAt: receivedAt).finish()
    }

    /// The decoded tickers before the empty checks; watched pairs not answered are `missing` under their
    /// request name (`XBTUSD`).
    package static func collect(_ body: Data, watched: Set<MarketPair>, receivedAt: Date) throws(SourceError) -> QuoteCollector {
        let rows: [Row]
        if let quick = quickRows(body) { rows = quick } else { rows = try carefulRows(body) }
        let spellings = KrakenPairNames.index(watched)
        var marketIDs: [String: MarketPair] = [:]
        var answered: Set<MarketPair> = []
        for key in rows.lazy.map(\.key) {
            if let pair = spellings[key.uppercased()], !answered.contains(pair) {
                marketIDs[key] = pair
                answered.insert(pair)
            }
        }
        for pair in watched where !answered.contains(pair) { marketIDs[KrakenPairNames.requestName(pair)] = pair }
        var collector = QuoteCollector(exchange: .kraken, receivedAt: receivedAt, watched: marketIDs)
        collector.listCount = rows.count
        for row in rows.sorted(by: { $0.key < $1.key }) where marketIDs[row.key] != nil {
            collector.add(market: row.key, last: row.last, bid: row.bid, ask: row.ask)
        }
        return collector
    }

    /// The rows of any answer through `Envelope` (the quick read's fallback): a non-empty `error` is `.api`.
    package static func carefulRows(_ body: Data) throws(SourceError) -> [Row] {
        let source = ExchangeID.kraken.rawValue
        let envelope = try ExchangeJSON.decode(Envelope.self, from: body, source: source)
        if let error = envelope.error { throw error }
        guard let result = envelope.result else {
            throw SourceError(source: source, kind: .decode, message: "result: missing")
        }
        return result.map { Row(key: $0.key, last: $0.value.c?.first, bid: $0.value.b?.first, ask: $0.value.a?.first) }
    }

    package static func isUnknownPair(_ error: SourceError) -> Bool {
        error.kind == .api && error.message.localizedCaseInsensitiveContains("Unknown asset pair")
    }

    package struct Envelope: Decodable {
        package var messages: [String]
        package var result: [String: Ticker]?

        package enum CodingKeys: String, CodingKey { case messages = "error", result }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            messages = try container.decodeIfPresent([String].self, forKey: .messages) ?? []
            // With errors, `result` is absent or empty and of no interest.
            result = messages.isEmpty ? try container.decodeIfPresent([String: Ticker].self, forKey: .result) : nil
        }

        package var error: SourceError? {
            guard !messages.isEmpty else { return nil }
            return SourceError(source: ExchangeID.kraken.rawValue, kind: .api, message: messages.joined(separator: "; "))
        }
    }

    /// `a` = [price, whole-lot volume, lot volume], `b` likewise, `c` = [price, lot volume].
    package struct Ticker: Decodable {
        package var a: [WirePrice]?
        package var b: [WirePrice]?
        package var c: [WirePrice]?
    }
}
