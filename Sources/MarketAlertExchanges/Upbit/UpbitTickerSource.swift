import Foundation
import MarketAlertCore
import MarketAlertKit

/// Upbit: `GET /v1/ticker?markets=KRW-BTC,KRW-ETH` (market codes are `QUOTE-BASE`). Prices are JSON numbers,
/// read exactly; no bid or ask; the quote time is `trade_timestamp` (ms, the last trade, which `trade_price`
/// is), falling back to `timestamp`.
///
/// Upbit answers `404 {"error":{"name":"404","message":"Code not found"}}` for the whole request when one
/// code is not listed. The source then reads `/v1/market/all` once, remembers the unlisted codes for an hour
/// (`UnlistedMarkets`) and asks again for the listed ones.
package struct UpbitTickerSource: QuoteSource {
    package var exchange: ExchangeID { .upbit }
    package let client: ExchangeClient
    package let unlisted: UnlistedMarkets

    package init(settings: ExchangeSettings, fetcher: HTTPFetcher) {
        self.init(settings: settings, fetcher: fetcher, unlisted: UnlistedMarkets())
    }

    package init(settings: ExchangeSettings, fetcher: HTTPFetcher, unlisted: UnlistedMarkets) {
        client = ExchangeClient(exchange: .upbit, settings: settings, fetcher: fetcher)
        self.unlisted = unlisted
    }

    /// `KRW-BTC`.
    package static func marketCode(_ pair: MarketPair) -> String { "\(pair.quote)-\(pair.base)".uppercased() }

    package func fetchQuotes(for pairs: Set<MarketPair>) async throws(SourceError) -> [Quote] {
        guard !pairs.isEmpty else { return [] }
        let known = unlisted.unlisted(now: client.now())
        let requested = pairs.filter { !known.contains(Self.marketCode($0)) }
        guard !requested.isEmpty else { throw unlisted.allUnlistedError(Set(pairs.map(Self.marketCode)), source: exchange.rawValue) }
        do {
            return try await tickers(for: requested)
        } catch let error where Self.isUnknownMarket(error) {
            let listed = try await listedMarkets()
            let requestedCodes = Set(requested.map(Self.marketCode))
            let missing = requestedCodes.subtracting(listed)
            guard !missing.isEmpty else { throw error }
            unlisted.record(missing, now: client.now())
            let remaining = requested.filter { listed.contains(Self.marketCode($0)) }
            guard !remaining.isEmpty else { throw unlisted.allUnlistedError(requestedCodes, source: exchange.rawValue) }
            return try await tickers(for: remaining)
        }
    }

    private func tickers(for pairs: Set<MarketPair>) async throws(SourceError) -> [Quote] {
        let markets = pairs.map(Self.marketCode).sorted().joined(separator: ",")
        let body = try await client.get("/v1/ticker", query: [("markets", markets)]) { Self.apiError(in: $1, status: $0) }
        return try Self.decode(body.body, watched: pairs, receivedAt: body.receivedAt)
    }

    /// Every market code Upbit lists (`GET /v1/market/all`).
    private func listedMarkets() async throws(SourceError) -> Set<String> {
        let body = try await client.get("/v1/market/all") { Self.apiError(in: $1, status: $0) }
        let markets = try ExchangeJSON.decode([ListedMarket].self, from: body.body, source: exchange.rawValue)
        return Set(markets.map(\.market))
    }

    /// Decodes a `/v1/ticker` body (a JSON array; an `{"error":…}` object is `.api`).
    package static func decode(_ body: Data, watched: Set<MarketPair>, receivedAt: Date) throws(SourceError) -> [Quote] {
        let source = ExchangeID.upbit.rawValue
        if ExchangeJSON.firstSignificantByte(body) == UInt8(ascii: "{") {
            throw apiError(in: body, status: 200)
                ?? SourceError(source: source, kind: .decode, message: "expected a JSON array of tickers, got an object")
        }
        var collector = QuoteCollector(exchange: .upbit, receivedAt: receivedAt, pairs: watched, marketID: marketCode)
        if UpbitStyleTicker.flatList.collect(body, into: &collector) { return try collector.finish() }
        let rows = try ExchangeJSON.decode([UpbitStyleTicker].self, from: body, source: source)
        UpbitStyleTicker.add(rows, to: &collector)
        return try collector.finish()
    }

    private static let unknownMarketPrefix = "market not listed"

    /// `{"error":{"name":"404","message":"Code not found"}}` as `.api`.
    package static func apiError(in body: Data, status: Int) -> SourceError? {
        guard let envelope = try? JSONDecoder().decode(ErrorBody.self, from: body) else { return nil }
        let name = envelope.error.name?.text ?? ""
        let message = envelope.error.message ?? ""
        let unknown = status == 404 && message.localizedCaseInsensitiveContains("code not found")
        return SourceError(
            source: ExchangeID.upbit.rawValue, kind: .api,
            message: "\(unknown ? unknownMarketPrefix + " " : "")error \(name): \(message)")
    }

    package static func isUnknownMarket(_ error: SourceError) -> Bool {
        error.kind == .api && error.message.hasPrefix(unknownMarketPrefix)
    }

    package struct ErrorBody: Decodable {
        package var error: Detail
        package struct Detail: Decodable {
            package var name: WireCode?
            package var message: String?
        }
    }

    package struct ListedMarket: Decodable {
        package var market: String
    }
}

/// One row of Upbit's `/v1/ticker` (also Bithumb's v1 API, which copies it): `QUOTE-BASE` market code,
/// JSON-number prices, millisecond timestamps.
package struct UpbitStyleTicker: Decodable {
    package var market: String
    package var trade_price: WirePrice?
    package var trade_timestamp: WireMillis?
    package var timestamp: WireMillis?

    /// The quick read of an ordinary list (the decoders fall back to `UpbitStyleTicker` rows for any other).
    package static let flatList = FlatTickerList(path: [], market: "market", last: ["trade_price"], time: ["trade_timestamp", "timestamp"])

    package static func add(_ rows: [UpbitStyleTicker], to collector: inout QuoteCollector) {
        collector.listCount = rows.count
        for row in rows {
            collector.add(market: row.market, last: row.trade_price, exchangeTime: (row.trade_timestamp ?? row.timestamp)?.date)
        }
    }
}
