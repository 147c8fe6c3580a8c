import Foundation
import MarketAlertTestSupport
import Synchronization

/// Exchange, FX and TWSE endpoints on one real local HTTP server, answering with the recorded payloads
/// (Tests/Fixtures) whose prices and times the test edits between polls. Paths are the real APIs' paths.
final class MockMarketAPIs: Sendable {
    struct Market: Sendable {
        var prices: [String: String] = [:]  // asset → last price
        /// When set, the exchange answers with this instead of a ticker payload.
        var override: MockHTTPServer.Response?
    }

    struct FX: Sendable {
        var dunamuRate = "1400.00"
        /// Dunamu's own quote time (KST date/time in the body); stale when older than fx.max_age.
        var dunamuAt = Date()
        var oxrRate = 1400.0
        var oxrAt = Date()
    }

    private struct State {
        var markets: [String: Market] = [:]
        var fx = FX()
    }

    let server: MockHTTPServer
    private let state = Mutex(State())

    init() async throws {
        server = try await MockHTTPServer()
        // Templates are kept as bytes (Sendable) and re-read per request.
        let binanceData = Self.json(try Self.binanceTemplate())
        let bybitData = try Fixtures.data("bybit/tickers-spot.json")
        let upbitData = Self.json(try Self.firstObject(Fixtures.data("upbit/ticker-KRW-BTC-ETH.json")))
        let dunamuData = Self.json(try Self.firstObject(Fixtures.data("dunamu/forex-recent-KRWUSD-20210813.json")))
        let oxrData = try Fixtures.data("openexchangerates/latest-USD-20180329.json")
        let bithumbData = try Fixtures.data("bithumb/public-ticker-ALL_KRW-trimmed-20221005.json")

        server.route("/api/v3/ticker/24hr") { [weak self] request in
            guard let self else { return .json("[]") }
            if let override = self.market("binance").override { return override }
            let symbols = Self.binanceSymbols(request.query)
            let body: [[String: Any]] = self.market("binance").prices.sorted(by: { $0.key < $1.key }).compactMap { asset, price in
                guard symbols.isEmpty || symbols.contains("\(asset)USDT") else { return nil }
                var entry = Self.object(binanceData)
                entry["symbol"] = "\(asset)USDT"
                entry["lastPrice"] = price
                entry["bidPrice"] = price
                entry["askPrice"] = price
                entry["closeTime"] = Self.millis(Date())
                return entry
            }
            return .data(Self.json(body))
        }
        server.route("/v5/market/tickers") { [weak self] _ in
            guard let self else { return .json("{}") }
            if let override = self.market("bybit").override { return override }
            let bybitTemplate = Self.object(bybitData)
            var envelope = bybitTemplate
            envelope["time"] = Self.millis(Date())
            let list: [[String: Any]] = self.market("bybit").prices.sorted(by: { $0.key < $1.key }).map { asset, price in
                var entry = (((bybitTemplate["result"] as? [String: Any])?["list"] as? [[String: Any]])?.first) ?? [:]
                entry["symbol"] = "\(asset)USDT"
                entry["lastPrice"] = price
                entry["bid1Price"] = price
                entry["ask1Price"] = price
                return entry
            }
            envelope["result"] = ["category": "spot", "list": list]
            return .data(Self.json(envelope))
        }
        server.route("/v1/ticker") { [weak self] request in
            guard let self else { return .json("[]") }
            if let override = self.market("upbit").override { return override }
            let body: [String] = self.market("upbit").prices.sorted(by: { $0.key < $1.key }).map { asset, price in
                var entry = Self.object(upbitData)
                entry["market"] = "KRW-\(asset)"
                entry["trade_price"] = "__PRICE__"
                entry["trade_timestamp"] = Self.millis(Date())
                entry["timestamp"] = Self.millis(Date())
                // Upbit sends JSON numbers with trailing zeros; keep the exact text.
                return String(decoding: Self.json(entry), as: UTF8.self).replacingOccurrences(of: "\"__PRICE__\"", with: price)
            }
            return .json("[" + body.joined(separator: ",") + "]")
        }
        // Bithumb's public API, `ALL_KRW` only: every coin set for "bithumb", `closing_price` the price, the
        // shared `date` (ms, a string) now. Its coins are also what the daemon subscribes to on the stream.
        server.route("/public/ticker/ALL_KRW") { [weak self] _ in
            guard let self else { return .json("{}") }
            if let override = self.market("bithumb").override { return override }
            let template = Self.object(bithumbData)
            let coin = ((template["data"] as? [String: Any])?["BTC"] as? [String: Any]) ?? [:]
            var data: [String: Any] = ["date": String(Self.millis(Date()))]
            for (asset, price) in self.market("bithumb").prices {
                var entry = coin
                entry["closing_price"] = price
                data[asset] = entry
            }
            return .data(Self.json(["status": "0000", "data": data]))
        }
        server.route("/v1/forex/recent") { [weak self] _ in
            guard let self else { return .json("[]") }
            let fx = self.fx
            var entry = Self.object(dunamuData)
            let kst = Self.kst(fx.dunamuAt)
            entry["date"] = kst.date
            entry["time"] = kst.time
            entry["timestamp"] = Self.millis(fx.dunamuAt)
            entry["basePrice"] = "__RATE__"
            let text = String(decoding: Self.json([entry]), as: UTF8.self).replacingOccurrences(of: "\"__RATE__\"", with: fx.dunamuRate)
            return .json(text)
        }
        server.route("/api/latest.json") { [weak self] _ in
            guard let self else { return .json("{}") }
            let fx = self.fx
            var body = Self.object(oxrData)
            body["timestamp"] = Int(fx.oxrAt.timeIntervalSince1970)
            var rates = body["rates"] as? [String: Any] ?? [:]
            rates["KRW"] = fx.oxrRate
            body["rates"] = rates
            return .data(Self.json(body))
        }
    }

    var baseURL: String { server.baseURL.absoluteString }

    func set(_ exchange: String, _ asset: String, _ price: String) {
        state.withLock { $0.markets[exchange, default: Market()].prices[asset] = price }
    }

    func override(_ exchange: String, with response: MockHTTPServer.Response?) {
        state.withLock { $0.markets[exchange, default: Market()].override = response }
    }

    func setFX(_ change: (inout FX) -> Void) { state.withLock { change(&$0.fx) } }

    func market(_ exchange: String) -> Market { state.withLock { $0.markets[exchange] ?? Market() } }
    var fx: FX { state.withLock { $0.fx } }

    // MARK: Templates from the recorded payloads

    private static func binanceTemplate() throws -> [String: Any] {
        let all = try JSONSerialization.jsonObject(with: Fixtures.data("binance/ticker-24hr-all-20240310.json")) as? [[String: Any]] ?? []
        return all.first { $0["symbol"] as? String == "BTCUSDT" } ?? [:]
    }

    private static func object(_ data: Data) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    }

    private static func firstObject(_ data: Data) throws -> [String: Any] {
        (try JSONSerialization.jsonObject(with: data) as? [[String: Any]])?.first ?? [:]
    }

    private static func json(_ value: Any) -> Data {
        (try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys])) ?? Data("null".utf8)
    }

    static func millis(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970 * 1000) }

    static func kst(_ date: Date) -> (date: String, time: String) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Asia/Seoul") ?? .gmt
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return (
            String(format: "%04d-%02d-%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0),
            String(format: "%02d:%02d:%02d", c.hour ?? 0, c.minute ?? 0, c.second ?? 0)
        )
    }

    private static func binanceSymbols(_ query: String?) -> Set<String> {
        guard let query, let item = query.split(separator: "&").first(where: { $0.hasPrefix("symbols=") }) else { return [] }
        let value = String(item.dropFirst("symbols=".count)).removingPercentEncoding ?? ""
        return Set(value.filter { $0.isLetter || $0.isNumber || $0 == "," }.split(separator: ",").map(String.init))
    }
}
