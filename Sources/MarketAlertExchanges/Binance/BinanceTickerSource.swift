import Foundation
import MarketAlertCore
import MarketAlertKit

/// Binance spot: `GET /api/v3/ticker/24hr?symbols=["BTCUSDT","ETHUSDT"]` (one request for every watched
/// symbol; weight 2 for up to 20 symbols, 40 up to 100).
///
/// Binance rejects the whole filtered request (`-1121 Invalid symbol.`) when one symbol is not listed; the
/// source then reads the full list once (weight 80), remembers the unlisted symbols for an hour
/// (`UnlistedMarkets`) and returns what it found. Request weight is watched by `BinanceWeightGuard`.
package struct BinanceTickerSource: QuoteSource {
    package var exchange: ExchangeID { .binance }
    package let client: ExchangeClient
    package let weightGuard: BinanceWeightGuard
    package let unlisted: UnlistedMarkets

    package init(settings: ExchangeSettings, fetcher: HTTPFetcher) {
        self.init(settings: settings, fetcher: fetcher, weightGuard: BinanceWeightGuard(), unlisted: UnlistedMarkets())
    }

    package init(settings: ExchangeSettings, fetcher: HTTPFetcher, weightGuard: BinanceWeightGuard, unlisted: UnlistedMarkets) {
        client = ExchangeClient(exchange: .binance, settings: settings, fetcher: fetcher)
        self.weightGuard = weightGuard
        self.unlisted = unlisted
    }

    /// `BTCUSDT`.
    package static func symbol(_ pair: MarketPair) -> String { (pair.base + pair.quote).uppercased() }

    package func fetchQuotes(for pairs: Set<MarketPair>) async throws(SourceError) -> [Quote] {
        guard !pairs.isEmpty else { return [] }
        let source = exchange.rawValue
        let known = unlisted.unlisted(now: client.now())
        let requested = pairs.filter { !known.contains(Self.symbol($0)) }
        guard !requested.isEmpty else { throw unlisted.allUnlistedError(Set(pairs.map(Self.symbol)), source: source) }

        let symbols = requested.map(Self.symbol).sorted()
        let list = "[" + symbols.map { "\"\($0)\"" }.joined(separator: ",") + "]"
        do {
            let body = try await get(query: [("symbols", list)])
            return try Self.decode(body.body, watched: requested, receivedAt: body.receivedAt)
        } catch let error where Self.isUnknownSymbol(error) {
            // One of the symbols is not listed: read everything once and learn which.
            let body = try await get(query: [])
            let collector = try Self.collect(body.body, watched: requested, receivedAt: body.receivedAt)
            unlisted.record(collector.missing, now: body.receivedAt)
            return try collector.finish()
        }
    }

    private func get(query: [(String, String)]) async throws(SourceError) -> FetchedBody {
        let source = exchange.rawValue
        try weightGuard.checkAllowed(now: client.now(), source: source)
        do {
            let body = try await client.get("/api/v3/ticker/24hr", query: query) { Self.apiError(in: $1) }
            weightGuard.observe(usedWeight: body.headers.first(name: BinanceWeightGuard.usedWeightHeader), at: body.receivedAt)
            return body
        } catch {
            weightGuard.observe(error, now: client.now())
            throw error
        }
    }

    // MARK: Decoding

    /// Decodes a `/api/v3/ticker/24hr` body (the list, or the single object of `?symbol=`; also the
    /// `{symbol, price}` rows of `/api/v3/ticker/price`) into quotes for the watched pairs.
    /// Only the watched rows are decoded into objects (see `JSONListPruner`).
    package static func decode(_ body: Data, watched: Set<MarketPair>, receivedAt: Date) throws(SourceError) -> [Quote] {
        try collect(body, watched: watched, receivedAt: receivedAt).finish()
    }

    /// The decoded rows before the empty checks (the unlisted-symbol fallback needs to know what was missing).
    package static func collect(_ body: Data, watched: Set<MarketPair>, receivedAt: Date) throws(SourceError) -> QuoteCollector {
        let source = ExchangeID.binance.rawValue
        var collector = QuoteCollector(exchange: .binance, receivedAt: receivedAt, pairs: watched, marketID: symbol)
        let rows: [Ticker]
        if ExchangeJSON.firstSignificantByte(body) == UInt8(ascii: "{") {
            if let error = apiError(in: body) { throw error }
            rows = [try ExchangeJSON.decode(Ticker.self, from: body, source: source)]
            collector.listCount = 1
        } else if flatList.collect(body, into: &collector) {
            return collector
        } else {
            let pruned = try ExchangeJSON.prune(body, source: source, listPath: [], keyField: "symbol", keep: collector.isWatched)
            rows = try ExchangeJSON.decode([Ticker].self, from: pruned.document, source: source)
            collector.listCount = pruned.elementCount ?? rows.count
        }
        for row in rows {
            collector.add(
                market: row.symbol, last: row.lastPrice ?? row.price,
                bid: row.bidPrice, ask: row.askPrice, exchangeTime: row.closeTime?.date)
        }
        return collector
    }

    /// `{"code":-1121,"msg":"Invalid symbol."}` as `.api`.
    package static func apiError(in body: Data) -> SourceError? {
        guard let envelope = try? JSONDecoder().decode(ErrorBody.self, from: body) else { return nil }
        return SourceError(
            source: ExchangeID.binance.rawValue, kind: .api,
            message: "\(unknownSymbolCode == envelope.code ? unknownSymbolPrefix : "error \(envelope.code)"): \(envelope.msg)")
    }

    /// The quick read of an ordinary list (`collect` falls back to pruning and `Ticker` for any other).
    package static let flatList = FlatTickerList(
        path: [], market: "symbol", last: ["lastPrice", "price"], bid: "bidPrice", ask: "askPrice", time: ["closeTime"])

    private static let unknownSymbolCode = -1121
    private static let unknownSymbolPrefix = "error -1121 (symbol not listed)"

    package static func isUnknownSymbol(_ error: SourceError) -> Bool {
        error.kind == .api && error.message.hasPrefix(unknownSymbolPrefix)
    }

    package struct Ticker: Decodable {
        package var symbol: String
        package var lastPrice: WirePrice?
        package var bidPrice: WirePrice?
        package var askPrice: WirePrice?
        /// `/api/v3/ticker/price` rows carry only `price`.
        package var price: WirePrice?
        package var closeTime: WireMillis?
    }

    package struct ErrorBody: Decodable {
        package var code: Int
        package var msg: String
    }
}
