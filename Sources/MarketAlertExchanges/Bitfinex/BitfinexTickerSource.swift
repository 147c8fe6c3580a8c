import Foundation
import MarketAlertCore
import MarketAlertKit

/// Bitfinex v2: `GET /v2/tickers?symbols=ALL`, a JSON array of arrays: trading pairs
/// `[SYMBOL, BID, BID_SIZE, ASK, ASK_SIZE, DAILY_CHANGE, DAILY_CHANGE_RELATIVE, LAST_PRICE, VOLUME, HIGH, LOW]`
/// and funding currencies (`fUSD`, 17 members, skipped). Prices are JSON numbers; there is no time (quotes
/// carry the receive time). Errors are `["error", code, "message"]`.
///
/// Symbols are `t` + base + quote in Bitfinex's own codes (`tBTCUSD`, `tBTCUST`: `UST` is Tether, USDT), with a
/// `:` between them when either is longer than three letters (`tAVAX:USD`). Test pairs (`tTESTBTC:TESTUSD`)
/// are never quotes.
package struct BitfinexTickerSource: QuoteSource {
    package var exchange: ExchangeID { .bitfinex }
    package let client: ExchangeClient

    package init(settings: ExchangeSettings, fetcher: HTTPFetcher) {
        client = ExchangeClient(exchange: .bitfinex, settings: settings, fetcher: fetcher)
    }

    /// Our asset codes that Bitfinex spells differently (its `UST` is Tether; `USTC` is TerraUSD Classic).
    static let bitfinexCode: [String: String] = [
        "USDT": "UST", "USDC": "UDC", "TUSD": "TSD", "EURT": "EUT", "DASH": "DSH", "IOTA": "IOT", "MANA": "MNA", "ATOM": "ATO",
        "ALGO": "ALG", "QTUM": "QTM", "DATA": "DAT", "STORJ": "STJ", "BCH": "BCHN", "XEC": "BCHABC", "LUNC": "LUNA", "LUNA": "LUNA2",
        "USTC": "TERRAUST",
    ]

    /// `tBTCUSD`, `tBTCUST` (USDT), `tAVAX:USD`.
    package static func symbol(_ pair: MarketPair) -> String {
        let base = code(pair.base)
        let quote = code(pair.quote)
        return base.count > 3 || quote.count > 3 ? "t\(base):\(quote)" : "t\(base)\(quote)"
    }

    static func code(_ asset: String) -> String {
        let upper = asset.uppercased()
        return bitfinexCode[upper] ?? upper
    }

    /// Whether a symbol is one of Bitfinex's test pairs (`tTESTBTC:TESTUSD`).
    package static func isTestPair<S: StringProtocol>(_ symbol: S) -> Bool { symbol.hasPrefix("tTEST") }

    package func fetchQuotes(for pairs: Set<MarketPair>) async throws(SourceError) -> [Quote] {
        try await client.fetchQuotes(
            for: pairs, path: "/v2/tickers", query: [("symbols", "ALL")], apiError: { Self.apiError(in: $1) }, decode: Self.decode)
    }

    /// Decodes a `/v2/tickers` body; `["error", code, message]` is `.api`.
    package static func decode(_ body: Data, watched: Set<MarketPair>, receivedAt: Date) throws(SourceError) -> [Quote] {
        let source = ExchangeID.bitfinex.rawValue
        var collector = QuoteCollector(exchange: .bitfinex, receivedAt: receivedAt, pairs: watched, marketID: symbol)
        let outcome: Result<Void, SourceError> = body.withUnsafeBytes { raw in
            let json = JSONBytes(raw)
            guard let root = json.root, json.bytes[root] == UInt8(ascii: "["), let (_, end) = json.value(at: root),
                  json.skipSpace(end) == raw.count
            else {
                return .failure(SourceError(source: source, kind: .decode, message: "invalid JSON: expected one array of tickers"))
            }
            if let error = error(json, arrayAt: root) { return .failure(error) }
            var rows = 0
            var malformed: String?
            json.elements(ofArrayAt: root) { row in
                rows += 1
                guard row.kind == .array else {
                    malformed = "[\(rows - 1)]: expected a ticker array"
                    return false
                }
                var fields: [JSONBytes.Value] = []
                fields.reserveCapacity(17)
                json.elements(ofArrayAt: row.start) { fields.append($0); return true }
                guard let first = fields.first, first.kind == .string else {
                    malformed = "[\(rows - 1)][0]: expected a symbol"
                    return false
                }
                let market = json.string(first)
                // Trading pairs only (funding currencies start with `f`), never a test pair.
                guard market.hasPrefix("t"), !isTestPair(market), collector.isWatched(market) else { return true }
                guard fields.count == 11 else {
                    malformed = "\(market): expected 11 members, got \(fields.count)"
                    return false
                }
                collector.add(market: market, last: price(json, fields[7]), bid: price(json, fields[1]), ask: price(json, fields[3]))
                return true
            }
            if let malformed { return .failure(SourceError(source: source, kind: .decode, message: malformed)) }
            collector.listCount = rows
            return .success(())
        }
        try outcome.get()
        return try collector.finish()
    }

    /// A price member: a number, or null (no price).
    static func price(_ json: JSONBytes, _ value: JSONBytes.Value) -> Price? {
        value.kind == .number ? json.price(value) : nil
    }

    /// `["error", 10020, "symbol: invalid"]` as `.api`.
    static func error(_ json: JSONBytes, arrayAt index: Int) -> SourceError? {
        var members: [JSONBytes.Value] = []
        json.elements(ofArrayAt: index) { value in
            members.append(value)
            return members.count < 4
        }
        guard members.count == 3, json.isString(members[0], "error") else { return nil }
        return SourceError(
            source: ExchangeID.bitfinex.rawValue, kind: .api, message: "error \(json.string(members[1])): \(json.string(members[2]))")
    }

    package static func apiError(in body: Data) -> SourceError? {
        body.withUnsafeBytes { raw in
            let json = JSONBytes(raw)
            guard let root = json.root, json.bytes[root] == UInt8(ascii: "[") else { return nil }
            return error(json, arrayAt: root)
        }
    }
}
