import Foundation
import MarketAlertCore
import MarketAlertKit

/// Bithumb (public API): `GET /public/ticker/ALL_KRW`, one request per quote currency watched (`ALL_BTC`,
/// `ALL_USDT` where Bithumb has such a market). `data` maps each coin to its ticker and also holds the shared
/// `date` (ms, a string); only the watched coins are decoded. No bid or ask: `closing_price` is the last price.
/// The v1 API's Upbit-style array (`[{"market":"KRW-BTC","trade_price":…}]`) is decoded too.
package struct BithumbTickerSource: QuoteSource {
    package var exchange: ExchangeID { .bithumb }
    package let client: ExchangeClient

    package init(settings: ExchangeSettings, fetcher: HTTPFetcher) {
        client = ExchangeClient(exchange: .bithumb, settings: settings, fetcher: fetcher)
    }

    /// `BTC_KRW` (the public API's spelling of a market).
    package static func marketID(_ pair: MarketPair) -> String { "\(pair.base)_\(pair.quote)".uppercased() }

    /// One request per watched quote currency. A premium rule may ask for a quote currency Bithumb lacks
    /// (`quotes: [KRW, USDT]`): when one currency's request is refused (`.api`) or has none of the watched
    /// coins (`.empty`) but another currency gives quotes, those are returned; timeouts, HTTP and decode
    /// failures fail the poll.
    package func fetchQuotes(for pairs: Set<MarketPair>) async throws(SourceError) -> [Quote] {
        let source = exchange.rawValue
        let byQuote = Dictionary(grouping: pairs) { $0.quote.uppercased() }
        var quotes: [Quote] = []
        var refusals: [SourceError] = []
        for (quoteCurrency, group) in byQuote.sorted(by: { $0.key < $1.key }) {
            do throws(SourceError) {
                let body = try await client.get("/public/ticker/ALL_\(quoteCurrency)") { Self.apiError(in: $1) }
                quotes += try Self.decode(body.body, quoteCurrency: quoteCurrency, watched: Set(group), receivedAt: body.receivedAt)
            } catch where error.kind == .api || error.kind == .empty {
                refusals.append(SourceError(source: source, kind: error.kind, message: "ALL_\(quoteCurrency): \(error.message)"))
            }
        }
        if quotes.isEmpty, let first = refusals.first {
            throw SourceError(source: source, kind: first.kind, message: refusals.map(\.message).joined(separator: "; "))
        }
        return quotes.sorted { $0.market < $1.market }
    }

    /// Decodes a `/public/ticker/ALL_<quoteCurrency>` body (the response does not name its quote currency, so
    /// the caller says which it asked for); `status != "0000"` is `.api`. A v1 array body carries its own
    /// `QUOTE-BASE` codes and ignores `quoteCurrency`.
    package static func decode(
        _ body: Data, quoteCurrency: String, watched: Set<MarketPair>, receivedAt: Date
    ) throws(SourceError) -> [Quote] {
        let source = ExchangeID.bithumb.rawValue
        if ExchangeJSON.firstSignificantByte(body) == UInt8(ascii: "[") {
            var collector = QuoteCollector(exchange: .bithumb, receivedAt: receivedAt, pairs: watched) { "\($0.quote)-\($0.base)".uppercased() }
            if UpbitStyleTicker.flatList.collect(body, into: &collector) { return try collector.finish() }
            let rows = try ExchangeJSON.decode([UpbitStyleTicker].self, from: body, source: source)
            UpbitStyleTicker.add(rows, to: &collector)
            return try collector.finish()
        }
        let quoteCurrency = quoteCurrency.uppercased()
        let relevant = watched.filter { $0.quote.uppercased() == quoteCurrency }
        let coins = Set(relevant.map { $0.base.uppercased() })
        let data: CoinPrices
        if let quick = quickPrices(body, coins: coins) { data = quick } else { data = try carefulPrices(body, coins: coins) }
        var collector = QuoteCollector(exchange: .bithumb, receivedAt: receivedAt, pairs: relevant, marketID: marketID)
        collector.listCount = data.coinCount
        for (coin, closing) in data.prices {
            collector.add(market: "\(coin)_\(quoteCurrency)", last: closing, exchangeTime: data.date)
        }
        return try collector.finish()
    }

    /// The watched coins of any `ALL_<quote>` answer through `Envelope` (the quick read's fallback).
    package static func carefulPrices(_ body: Data, coins: Set<String>) throws(SourceError) -> CoinPrices {
        let source = ExchangeID.bithumb.rawValue
        let envelope = try ExchangeJSON.decode(Envelope.self, from: body, source: source, userInfo: [CoinMap.watchedCoinsKey: coins])
        if let error = envelope.error { throw error }
        guard let data = envelope.data else {
            throw SourceError(source: source, kind: .decode, message: "data: missing")
        }
        return CoinPrices(prices: data.tickers.map { ($0.coin, $0.ticker.closing_price) }, date: data.date?.date, coinCount: data.coinCount)
    }

    package static func apiError(in body: Data) -> SourceError? {
        (try? JSONDecoder().decode(Envelope.self, from: body))?.error
    }

    package struct Envelope: Decodable {
        package var status: WireCode
        package var message: String?
        package var data: CoinMap?

        package enum CodingKeys: String, CodingKey { case status, message, data }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            status = try container.decode(WireCode.self, forKey: .status)
            message = try container.decodeIfPresent(String.self, forKey: .message)
            // An error envelope's `data` is absent or of no interest; only a success carries the coin map.
            data = status.text == "0000" ? try container.decodeIfPresent(CoinMap.self, forKey: .data) : nil
        }

        package var error: SourceError? {
            guard status.text != "0000" else { return nil }
            return SourceError(source: ExchangeID.bithumb.rawValue, kind: .api, message: "status \(status.text): \(message ?? "")")
        }
    }

    /// `data` of `ALL_<quote>`: coin → ticker, plus `date`. Decodes only the coins named in
    /// `userInfo[watchedCoinsKey]` (a `Set<String>`), so the other few hundred are never built.
    package struct CoinMap: Decodable {
        package static let watchedCoinsKey = CodingUserInfoKey(rawValue: "marketalertd.bithumb.watchedCoins")!  // constant, valid

        package var tickers: [(coin: String, ticker: CoinTicker)] = []
        package var date: WireMillis?
        /// Coins in the map (every key but `date`).
        package var coinCount = 0

        package struct Key: CodingKey {
            package var stringValue: String
            package var intValue: Int? { nil }
            package init(stringValue: String) { self.stringValue = stringValue }
            package init?(intValue: Int) { nil }
        }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            if container.contains(Key(stringValue: "closing_price")) {
                throw DecodingError.dataCorrupted(.init(
                    codingPath: container.codingPath,
                    debugDescription: "single-market ticker (data.closing_price), expected the ALL_<quote> map"))
            }
            let watched = decoder.userInfo[Self.watchedCoinsKey] as? Set<String> ?? []
            let dateKey = Key(stringValue: "date")
            date = try container.decodeIfPresent(WireMillis.self, forKey: dateKey)
            coinCount = container.allKeys.count - (container.contains(dateKey) ? 1 : 0)
            for coin in watched.sorted() {
                if let ticker = try container.decodeIfPresent(CoinTicker.self, forKey: Key(stringValue: coin)) {
                    tickers.append((coin, ticker))
                }
            }
        }
    }

    package struct CoinTicker: Decodable {
        package var closing_price: WirePrice?
    }
}
