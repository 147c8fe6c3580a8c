import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport

/// Every registry exchange's ticker endpoints and Dunamu's USD/KRW feed on one local HTTP server, at the real
/// APIs' paths, in the recorded payload shapes, with prices that move a little on every request. Each
/// exchange is its wire kit's REST peer (`descriptor.wire.rest`) over a book of the watched assets.
///
/// Each exchange answers the way the real one does, including its refusals: Binance lists ~3,000 symbols
/// and answers `-1121` when a filtered request names one it lacks (the daemon's KRW pairs), Upbit lists
/// KRW markets for all 50 assets but USDT markets for 20 (`404 Code not found`, then `/v1/market/all`),
/// Bithumb has no `ALL_USDT`; Bybit, OKX and Bitget always send their whole spot list (600, 700 and 1,200
/// rows here), Kraken answers only the pairs asked for, Coinbase one product per request.
final class MockExchangeAPIs: Sendable {
    /// Rows of each exchange's bulk answers (the watched markets first, then other markets); an exchange
    /// not named lists only the watched ones.
    static let bulkSizes: [ExchangeID: Int] = [.binance: 3000, .bybit: 600, .okx: 700, .bitget: 1200, .bithumb: 220]
    /// Markets listed beside the home quote's: the first `count` assets in `quote`.
    static let extraListings: [ExchangeID: (quote: String, count: Int)] = [.upbit: ("USDT", 20)]

    let server: MockHTTPServer
    let assets: [String]
    let books: [(descriptor: ExchangeDescriptor, book: WirePeerBook)]

    init(markets: BenchMarkets, list: BinanceBulkList, dunamu: FlatJSONTemplate) async throws {
        server = try await MockHTTPServer()
        assets = markets.assets
        let model = PriceModel(markets: markets)
        let watchedSymbols = Set(markets.assets.map { $0 + "USDT" })
        let now = MockExchangeAPIs.millis()
        // Other markets, unwatched: the recorded Binance rows (live ones first), and for KRW exchanges the
        // live USDT ones of other assets at 1,400 won per dollar.
        let recorded = list.rows.filter { !watchedSymbols.contains($0.symbol) }
        let others = (recorded.filter(\.isLive) + recorded.filter { !$0.isLive }).compactMap { MarketRow(binance: $0.template) }.map { row in
            var row = row
            row.timeMillis = now
            return row
        }
        var krwBases: Set<String> = Set(markets.assets)
        let krwOthers = others.filter { $0.quote == "USDT" && Double($0.last).map { $0 > 0 } == true && krwBases.insert($0.base).inserted }.compactMap { row in
            Double(row.last).map { usd in
                MarketRow(base: row.base, quote: "KRW", price: usd * BenchMarkets.usdKRW, places: DecimalFormat.places(for: usd * BenchMarkets.usdKRW), timeMillis: now)
            }
        }
        books = ExchangeRegistry.standard.listed.map { descriptor in
            let exchange = descriptor.id
            let home = descriptor.wire.homeQuote
            var listed = markets.assets.map { MarketPair(base: $0, quote: home) }
            if let extra = MockExchangeAPIs.extraListings[exchange] {
                listed += markets.assets.prefix(extra.count).map { MarketPair(base: $0, quote: extra.quote) }
            }
            let live = listed.map { (id: descriptor.marketID($0), pair: $0) }
            let liveByID = Dictionary(live.map { ($0.id, $0.pair) }, uniquingKeysWith: { first, _ in first })
            let filler = Array((home == "KRW" ? krwOthers : others).prefix(max(0, (MockExchangeAPIs.bulkSizes[exchange] ?? 0) - markets.assets.count)))
            let otherByID = Dictionary(filler.map { (descriptor.marketID($0.pair), $0) }, uniquingKeysWith: { first, _ in first })
            let book = WirePeerBook(
                live: { live.map { (id: $0.id, row: model.row($0.pair.base, quote: $0.pair.quote, on: exchange)) } },
                row: { id in liveByID[id].map { model.row($0.base, quote: $0.quote, on: exchange) } ?? otherByID[id] },
                others: filler)
            return (descriptor, book)
        }
        let books = self.books
        server.fallback { request in
            let wire = WireRequest(path: request.path, query: request.query, nowMillis: MockExchangeAPIs.millis())
            for (descriptor, book) in books {
                guard let answer = descriptor.wire.rest.answer(wire, book) else { continue }
                return MockHTTPServer.Response(status: answer.status, headers: answer.headers, body: Data(answer.body.utf8))
            }
            return nil
        }
        server.route("/v1/forex/recent") { _ in
            let now = Date()
            let kst = MockExchangeAPIs.kst(now)
            return .json("[" + dunamu.render([
                "date": kst.date.quoted, "time": kst.time.quoted, "timestamp": String(MockExchangeAPIs.millis(now)),
                "basePrice": DecimalFormat.fixed(BenchMarkets.usdKRW, places: 2),
            ]) + "]")
        }
    }

    var baseURL: String { server.baseURL.absoluteString }

    /// Requests per exchange (and `dunamu`), and how many of them began a poll.
    func traffic() -> [String: (requests: Int, polls: Int)] {
        var result: [String: (requests: Int, polls: Int)] = [:]
        for request in server.requests {
            let wire = WireRequest(path: request.path, query: request.query, nowMillis: 0)
            var (name, startsPoll) = (request.path, request.path == "/v1/forex/recent")
            if startsPoll { name = "dunamu" }
            for (descriptor, book) in books {
                guard let starts = descriptor.wire.rest.startsPoll(wire, book) else { continue }
                (name, startsPoll) = (descriptor.id.rawValue, starts)
                break
            }
            result[name, default: (0, 0)].requests += 1
            if startsPoll { result[name, default: (0, 0)].polls += 1 }
        }
        return result
    }

    func shutdown() async { await server.shutdown() }

    // MARK: Helpers

    static func millis(_ date: Date = Date()) -> Int64 { Int64(date.timeIntervalSince1970 * 1000) }

    /// Dunamu's `date`/`time` are Korean local time.
    static func kst(_ date: Date) -> (date: String, time: String) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Asia/Seoul") ?? .gmt
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return (String(format: "%04d-%02d-%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0),
                String(format: "%02d:%02d:%02d", c.hour ?? 0, c.minute ?? 0, c.second ?? 0))
    }
}

/// Prices of the mock exchanges: the recorded USD price of each asset, moved by up to ±0.005% per request
/// (well inside the 0.05% notice level), in KRW at 1,400 per dollar. One deliberate premium: the first asset
/// is 0.08% dearer on Bybit, so the `global` rule fires one notice and holds it (the alert path runs too).
struct PriceModel: Sendable {
    let usd: [String: Double]
    let firstAsset: String?

    init(markets: BenchMarkets) {
        usd = Dictionary(uniqueKeysWithValues: markets.assets.map { ($0, markets.usdPrice($0)) })
        firstAsset = markets.assets.first
    }

    func row(_ asset: String, quote: String, on exchange: ExchangeID) -> MarketRow {
        var price = (usd[asset] ?? 1) * (1 + Double.random(in: -0.00005...0.00005))
        if exchange == .bybit, asset == firstAsset { price *= 1.0008 }
        if quote == "KRW" { price *= BenchMarkets.usdKRW }
        return MarketRow(base: asset, quote: quote, price: price, places: DecimalFormat.places(for: price), timeMillis: MockExchangeAPIs.millis())
    }
}
