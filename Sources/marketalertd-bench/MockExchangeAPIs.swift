import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport

/// The 8 exchanges' ticker endpoints and Dunamu's USD/KRW feed on one local HTTP server, at the real APIs'
/// paths, in the recorded payload shapes, with prices that move a little on every request.
///
/// Each exchange answers the way the real one does, including its refusals: Binance lists ~3,000 symbols
/// and answers `-1121` when a filtered request names one it lacks (the daemon's KRW pairs), Upbit lists
/// KRW markets for all 50 assets but USDT markets for 20 (`404 Code not found`, then `/v1/market/all`),
/// Bithumb has no `ALL_USDT`; Bybit, OKX and Bitget always send their whole spot list (600, 700 and 1,200
/// rows here), Kraken answers only the pairs asked for, Coinbase one product per request.
final class MockExchangeAPIs: Sendable {
    static let bulkSizes: [ExchangeID: Int] = [.bybit: 600, .okx: 700, .bitget: 1200, .bithumb: 220]
    static let upbitUSDTMarkets = 20

    let server: MockHTTPServer
    let assets: [String]

    init(markets: BenchMarkets, list: BinanceBulkList, shapes: ExchangeRowShapes) async throws {
        server = try await MockHTTPServer()
        assets = markets.assets
        let model = PriceModel(markets: markets)
        let watchedSymbols = Set(markets.assets.map { $0 + "USDT" })
        let now = Int64(Date().timeIntervalSince1970 * 1000)

        // Other markets of each exchange, rendered once: live recorded Binance rows not watched.
        let others = list.rows.filter { $0.isLive && !watchedSymbols.contains($0.symbol) }.compactMap { MarketRow(binance: $0.template) }
        func filler(_ exchange: ExchangeID, _ render: (MarketRow) -> String) -> [String] {
            others.prefix((MockExchangeAPIs.bulkSizes[exchange] ?? 0) - markets.assets.count).map { row in
                var row = row
                row.timeMillis = now
                return render(row)
            }
        }
        let bybitOthers = filler(.bybit, shapes.bybitRow)
        let okxOthers = filler(.okx, shapes.okxRow)
        let bitgetOthers = filler(.bitget, shapes.bitgetRow)
        var bithumbCoins: [String] = []
        var bithumbOthers: [String] = []
        for row in others where row.quote == "USDT" && !markets.assets.contains(row.base) && !bithumbCoins.contains(row.base) {
            guard bithumbCoins.count < (MockExchangeAPIs.bulkSizes[.bithumb] ?? 0) - markets.assets.count, let usd = Double(row.last) else { continue }
            bithumbCoins.append(row.base)
            bithumbOthers.append("\"\(row.base)\":" + shapes.bithumbTicker(MarketRow(base: row.base, quote: "KRW", price: usd * BenchMarkets.usdKRW, places: DecimalFormat.places(for: usd * BenchMarkets.usdKRW), timeMillis: now)))
        }
        let bithumbFiller = bithumbOthers
        let binanceListed = Set(list.rows.map(\.symbol))
        let binanceOthers = list.rows.filter { !watchedSymbols.contains($0.symbol) }.map(\.text)
        let upbitListed = Set(markets.assets.map { "KRW-\($0)" } + markets.assets.prefix(MockExchangeAPIs.upbitUSDTMarkets).map { "USDT-\($0)" })
        let krakenNames = Dictionary(uniqueKeysWithValues: markets.assets.map { (KrakenPairNames.requestName(MarketPair(base: $0, quote: "USDT")), $0) })

        // Binance: the filtered request of the poller, or the whole list (its fallback after -1121).
        server.route("/api/v3/ticker/24hr") { request in
            let watched = markets.assets.map { shapes.binanceRow(model.row($0, quote: "USDT", on: .binance)) }
            guard let symbols = MockExchangeAPIs.queryValue("symbols", in: request.query) else {
                return MockExchangeAPIs.binance("[" + (watched + binanceOthers).joined(separator: ",") + "]")
            }
            let requested = symbols.filter { $0.isLetter || $0.isNumber || $0 == "," }.split(separator: ",").map(String.init)
            guard requested.allSatisfy({ binanceListed.contains($0) }) else {
                return MockExchangeAPIs.binance(#"{"code":-1121,"msg":"Invalid symbol."}"#, status: 400)
            }
            let rows = requested.compactMap { symbol -> String? in
                guard watchedSymbols.contains(symbol) else { return list.row(symbol)?.text }
                return shapes.binanceRow(model.row(String(symbol.dropLast(4)), quote: "USDT", on: .binance))
            }
            return MockExchangeAPIs.binance("[" + rows.joined(separator: ",") + "]")
        }
        server.route("/v5/market/tickers") { _ in
            let rows = markets.assets.map { shapes.bybitRow(model.row($0, quote: "USDT", on: .bybit)) }
            return .json(shapes.bybit.body(rows: rows + bybitOthers, numbers: ["time": MockExchangeAPIs.millis()]))
        }
        server.route("/api/v5/market/tickers") { _ in
            let rows = markets.assets.map { shapes.okxRow(model.row($0, quote: "USDT", on: .okx)) }
            return .json(shapes.okx.body(rows: rows + okxOthers))
        }
        server.route("/api/v2/spot/market/tickers") { _ in
            let rows = markets.assets.map { shapes.bitgetRow(model.row($0, quote: "USDT", on: .bitget)) }
            return .json(shapes.bitget.body(rows: rows + bitgetOthers, numbers: ["requestTime": MockExchangeAPIs.millis()]))
        }
        server.route("/v1/ticker") { request in
            let codes = (MockExchangeAPIs.queryValue("markets", in: request.query) ?? "").split(separator: ",").map(String.init)
            guard !codes.isEmpty, codes.allSatisfy(upbitListed.contains) else {
                return .json(#"{"error":{"name":"404","message":"Code not found"}}"#, status: 404)
            }
            let rows = codes.map { code in
                let parts = code.split(separator: "-").map(String.init)
                return shapes.upbitRow(model.row(parts[1], quote: parts[0], on: .upbit))
            }
            return .json("[" + rows.joined(separator: ",") + "]")
        }
        server.route("/v1/market/all") { _ in
            .json("[" + upbitListed.sorted().map { #"{"market":"\#($0)","korean_name":"\#($0)","english_name":"\#($0)"}"# }.joined(separator: ",") + "]")
        }
        server.route("/public/ticker/ALL_KRW") { _ in
            let coins = markets.assets.map { "\"\($0)\":" + shapes.bithumbTicker(model.row($0, quote: "KRW", on: .bithumb)) }
            return .json(#"{"status":"0000","data":{"# + (coins + bithumbFiller).joined(separator: ",") + #","date":"\#(MockExchangeAPIs.millis())"}}"#)
        }
        server.route("/public/ticker/ALL_USDT") { _ in
            .json(#"{"status":"5500","message":"Invalid Parameter"}"#)
        }
        server.route("/0/public/Ticker") { request in
            let names = (MockExchangeAPIs.queryValue("pair", in: request.query) ?? "").split(separator: ",").map(String.init)
            guard !names.isEmpty, names.allSatisfy({ krakenNames[$0] != nil }) else {
                return .json(#"{"error":["EQuery:Unknown asset pair"]}"#)
            }
            let entries = names.compactMap { name in
                krakenNames[name].map { "\"\(name)\":" + shapes.krakenTicker(model.row($0, quote: "USDT", on: .kraken)) }
            }
            return .json(#"{"error":[],"result":{"# + entries.joined(separator: ",") + "}}")
        }
        for asset in markets.assets {
            server.route("/products/\(asset)-USDT/ticker") { _ in
                .json(shapes.coinbaseTicker(model.row(asset, quote: "USDT", on: .coinbase)))
            }
        }
        server.route("/v1/forex/recent") { _ in
            let now = Date()
            let kst = MockExchangeAPIs.kst(now)
            return .json("[" + shapes.dunamu.render([
                "date": kst.date.quoted, "time": kst.time.quoted, "timestamp": String(MockExchangeAPIs.millis(now)),
                "basePrice": DecimalFormat.fixed(BenchMarkets.usdKRW, places: 2),
            ]) + "]")
        }
    }

    var baseURL: String { server.baseURL.absoluteString }

    /// Requests per exchange (and `dunamu`), and how many of them began a poll.
    func traffic() -> [String: (requests: Int, polls: Int)] {
        var result: [String: (requests: Int, polls: Int)] = [:]
        let firstProduct = "/products/\(assets.first ?? "BTC")-USDT/ticker"
        for request in server.requests {
            let (name, startsPoll): (String, Bool) = switch request.path {
            case "/api/v3/ticker/24hr": ("binance", request.query?.contains("symbols=") == true)
            case "/v5/market/tickers": ("bybit", true)
            case "/api/v5/market/tickers": ("okx", true)
            case "/api/v2/spot/market/tickers": ("bitget", true)
            case "/v1/ticker": ("upbit", true)
            case "/v1/market/all": ("upbit", false)
            case "/public/ticker/ALL_KRW": ("bithumb", true)
            case "/0/public/Ticker": ("kraken", true)
            case "/v1/forex/recent": ("dunamu", true)
            case _ where request.path.hasPrefix("/products/"): ("coinbase", request.path == firstProduct)
            default: (request.path, false)
            }
            result[name, default: (0, 0)].requests += 1
            if startsPoll { result[name, default: (0, 0)].polls += 1 }
        }
        return result
    }

    func shutdown() async { await server.shutdown() }

    // MARK: Helpers

    private static func binance(_ text: String, status: Int = 200) -> MockHTTPServer.Response {
        MockHTTPServer.Response(status: status, headers: [("Content-Type", "application/json"), ("X-MBX-USED-WEIGHT-1M", "42")], body: Data(text.utf8))
    }

    static func millis(_ date: Date = Date()) -> Int64 { Int64(date.timeIntervalSince1970 * 1000) }

    /// The percent-decoded value of `name` in a query string.
    static func queryValue(_ name: String, in query: String?) -> String? {
        guard let query, let item = query.split(separator: "&").first(where: { $0.hasPrefix("\(name)=") }) else { return nil }
        return String(item.dropFirst(name.count + 1)).removingPercentEncoding
    }

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
