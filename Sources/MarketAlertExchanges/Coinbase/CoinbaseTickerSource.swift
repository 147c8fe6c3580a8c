import Foundation
import MarketAlertCore
import MarketAlertKit

/// Coinbase Exchange: `GET /products/{BASE-QUOTE}/ticker`.
///
/// Coinbase Exchange has no bulk ticker endpoint, so this source makes one request per watched product,
/// at most `maxConcurrentRequests` at a time and at most `requestsPerSecond` a second: Coinbase's public
/// limit is 10 requests a second per IP (docs.cdp.coinbase.com/exchange/docs/rate-limits), and the book
/// polls of depth rules take up to 2.5 of them (`CoinbaseBook.interval`). A poll of 50 products thus takes
/// about 7 s whatever `poll_interval` says, where unpaced it was refused with 429s; the pauses run on the
/// injected clock (`pace coinbase`).
/// A product Coinbase does not list (`404 {"message":"NotFound"}`) is simply missing from the result; any
/// other failure fails the poll. The quote time is the ISO-8601 `time` (microseconds) of the last trade.
package struct CoinbaseTickerSource: QuoteSource {
    package var exchange: ExchangeID { .coinbase }
    package let client: ExchangeClient
    package var maxConcurrentRequests = 4
    /// 7 of Coinbase's 10 public requests a second per IP (the book polls take up to 2.5).
    package static let requestsPerSecond = 7

    package static let paceLabel = ClockLabel("pace coinbase")

    package init(settings: ExchangeSettings, fetcher: HTTPFetcher) {
        client = ExchangeClient(exchange: .coinbase, settings: settings, fetcher: fetcher)
    }

    /// `BTC-USD`.
    package static func productID(_ pair: MarketPair) -> String { "\(pair.base)-\(pair.quote)".uppercased() }

    package func fetchQuotes(for pairs: Set<MarketPair>) async throws(SourceError) -> [Quote] {
        guard !pairs.isEmpty else { return [] }
        var collector = QuoteCollector(exchange: .coinbase, receivedAt: client.now(), pairs: pairs, marketID: Self.productID)
        collector.listCount = pairs.count
        let products = pairs.map(Self.productID).sorted()
        let clock = client.fetcher.clock
        var pacer = OutboundPacer(limit: client.settings.restRequestsPerSecond ?? Self.requestsPerSecond, per: .seconds(1))
        let outcomes = await withTaskGroup(of: (String, Result<Fetched?, SourceError>).self) { group in
            var outcomes: [(String, Result<Fetched?, SourceError>)] = []
            var next = 0
            // Starts the next product's request once the pacer has a slot; false when none is left or the
            // poll was cancelled while waiting.
            func startNext() async -> Bool {
                guard next < products.count else { return false }
                let slot = pacer.nextSlot(now: clock.now())
                if slot > clock.now() {
                    do { try await clock.sleep(until: slot, label: Self.paceLabel) } catch { return false }
                }
                pacer.record(now: clock.now())
                let product = products[next]
                next += 1
                group.addTask { (product, await fetchProduct(product)) }
                return true
            }
            for _ in 0..<max(1, maxConcurrentRequests) where await startNext() {}
            while let outcome = await group.next() {
                outcomes.append(outcome)
                if case .failure = outcome.1 {
                    group.cancelAll()
                } else {
                    _ = await startNext()
                }
            }
            return outcomes
        }
        // The first real failure wins, rate limiting first (it tells the poller how long to wait).
        let failures = outcomes.compactMap { outcome -> SourceError? in
            if case .failure(let error) = outcome.1 { return error }
            return nil
        }
        if let failure = failures.first(where: { $0.retryAfter != nil }) ?? failures.first { throw failure }
        var receivedAt: [String: Date] = [:]
        for case (let product, .success(let fetched?)) in outcomes {
            receivedAt[product] = fetched.receivedAt
            collector.add(
                market: product, last: fetched.ticker.price, bid: fetched.ticker.bid, ask: fetched.ticker.ask,
                exchangeTime: fetched.time)
        }
        return try collector.finish().map { quote in
            var quote = quote
            quote.receivedAt = receivedAt[quote.market] ?? quote.receivedAt
            return quote
        }
    }

    private struct Fetched: Sendable {
        var ticker: Ticker
        var time: Date?
        var receivedAt: Date
    }

    /// One product's ticker; `nil` when Coinbase does not list the product.
    private func fetchProduct(_ product: String) async -> Result<Fetched?, SourceError> {
        do throws(SourceError) {
            let body = try await client.get("/products/\(ExchangeEndpoint.encode(product))/ticker") {
                Self.apiError(in: $1, status: $0, product: product)
            }
            let ticker = try Self.decodeTicker(body.body, product: product)
            return .success(Fetched(ticker: ticker, time: try Self.time(of: ticker, product: product), receivedAt: body.receivedAt))
        } catch where error.kind == .api && error.message.hasPrefix(Self.notListedPrefix) {
            return .success(nil)
        } catch {
            return .failure(error)
        }
    }

    /// Decodes one `/products/{id}/ticker` body into a quote for `product`.
    package static func decode(_ body: Data, product pair: MarketPair, receivedAt: Date) throws(SourceError) -> Quote {
        let product = productID(pair)
        let ticker = try decodeTicker(body, product: product)
        var collector = QuoteCollector(exchange: .coinbase, receivedAt: receivedAt, pairs: [pair], marketID: productID)
        collector.listCount = 1
        collector.add(
            market: product, last: ticker.price, bid: ticker.bid, ask: ticker.ask,
            exchangeTime: try time(of: ticker, product: product))
        guard let quote = try collector.finish().first else {
            throw SourceError(source: ExchangeID.coinbase.rawValue, kind: .empty, message: "no quote for \(product)")
        }
        return quote
    }

    private static func decodeTicker(_ body: Data, product: String) throws(SourceError) -> Ticker {
        let source = ExchangeID.coinbase.rawValue
        let ticker = try ExchangeJSON.decode(Ticker.self, from: body, source: source)
        if ticker.price == nil {
            if let message = ticker.message { throw SourceError(source: source, kind: .api, message: "\(product): \(message)") }
            throw SourceError(source: source, kind: .decode, message: "\(product): price: missing")
        }
        return ticker
    }

    /// `2024-03-13T11:10:41.270099Z`; absent is no time, unparsable is `.decode`.
    private static func time(of ticker: Ticker, product: String) throws(SourceError) -> Date? {
        guard let text = ticker.time else { return nil }
        guard let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) else {
            throw SourceError(source: ExchangeID.coinbase.rawValue, kind: .decode, message: "\(product): time: not an ISO-8601 time: \(text.prefix(40))")
        }
        return date
    }

    private static let notListedPrefix = "product not listed"

    package static func apiError(in body: Data, status: Int, product: String) -> SourceError? {
        guard let message = (try? JSONDecoder().decode(Ticker.self, from: body))?.message else { return nil }
        let prefix = status == 404 ? "\(notListedPrefix) " : ""
        return SourceError(source: ExchangeID.coinbase.rawValue, kind: .api, message: "\(prefix)\(product): \(message)")
    }

    package struct Ticker: Decodable, Sendable {
        /// Absent or `null` only on error answers; `"0"` and the like decode to a `WirePrice` without a price.
        package var price: WirePrice?
        package var bid: WirePrice?
        package var ask: WirePrice?
        package var time: String?
        /// Present on error answers: `{"message":"NotFound"}`.
        package var message: String?
    }
}
