import AsyncHTTPClient
import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// A real HTTP server on 127.0.0.1 and a real client; both are shut down when `body` ends. `maxBodyBytes`
/// lowers the fetcher's body cap.
func withExchangeServer(
    clock: any DaemonClock = SystemClock(), maxBodyBytes: Int? = nil, _ body: (MockHTTPServer, HTTPFetcher) async throws -> Void
) async throws {
    let server = try await MockHTTPServer()
    let client = HTTPClient(eventLoopGroupProvider: .singleton)
    var fetcher = AsyncHTTPFetcher(client: client, clock: clock)
    if let maxBodyBytes { fetcher.maxBodyBytes = maxBodyBytes }
    do {
        try await body(server, fetcher)
    } catch {
        try await client.shutdown()
        await server.shutdown()
        throw error
    }
    try await client.shutdown()
    await server.shutdown()
}

/// One ticker row to serve: prices are written as given (so tests can send `"0"`, `"-1"`, `"NaN"`).
struct TickerRow: Sendable {
    var pair: MarketPair
    var last: String
    var bid: String
    var ask: String
}

/// How one exchange is asked and how it answers, for tests that run the same scenario on all eight.
struct ExchangeCase: Sendable, CustomTestStringConvertible {
    var id: ExchangeID
    var quoteCurrency: String
    /// The requests one poll of BTC and ETH makes: path and raw query.
    var expectedRequests: [(path: String, query: String?)]
    var marketID: @Sendable (MarketPair) -> String
    var hasBidAsk: Bool
    /// The body for these rows (Coinbase: the body of one product, `rows[0]`).
    var body: @Sendable ([TickerRow]) -> String
    /// The exchange's own error answer.
    var apiError: (status: Int, body: String)

    var testDescription: String { id.rawValue }

    var btc: MarketPair { MarketPair(base: "BTC", quote: quoteCurrency) }
    var eth: MarketPair { MarketPair(base: "ETH", quote: quoteCurrency) }
    var ltc: MarketPair { MarketPair(base: "LTC", quote: quoteCurrency) }
    var watched: Set<MarketPair> { [btc, eth] }

    func source(_ server: MockHTTPServer, _ fetcher: HTTPFetcher, timeout: Duration = .seconds(5)) -> any QuoteSource {
        var settings = ExchangeSettings(id: id, baseURL: server.baseURL)
        settings.timeout = timeout
        return ExchangeRegistry.standard.makeQuoteSource(settings, fetcher: fetcher) ?? BinanceTickerSource(settings: settings, fetcher: fetcher)
    }

    /// Serves `rows` the way the exchange would (Coinbase: one route per product, unlisted ones 404).
    func serve(_ rows: [TickerRow], on server: MockHTTPServer) {
        if id == .coinbase {
            for pair in [btc, eth, ltc] {
                let path = "/products/\(marketID(pair))/ticker"
                if let row = rows.first(where: { $0.pair == pair }) {
                    server.route(path, response: .json(body([row])))
                } else {
                    server.route(path, response: .json(#"{"message":"NotFound"}"#, status: 404))
                }
            }
        } else {
            server.route(expectedRequests[0].path, response: .json(body(rows)))
        }
    }

    /// Serves `response` on every route a poll uses.
    func serve(_ response: MockHTTPServer.Response, on server: MockHTTPServer) {
        for request in expectedRequests { server.route(request.path, response: response) }
    }

    var goodRows: [TickerRow] {
        [
            TickerRow(pair: btc, last: "67000.5", bid: "67000.4", ask: "67000.6"),
            TickerRow(pair: eth, last: "3500.25", bid: "3500.2", ask: "3500.3"),
            TickerRow(pair: ltc, last: "80.1", bid: "80", ask: "80.2"),
        ]
    }

    static let all: [ExchangeCase] = [binance, bybit, bitget, okx, upbit, bithumb, kraken, coinbase]

    static let binance = ExchangeCase(
        id: .binance, quoteCurrency: "USDT",
        expectedRequests: [("/api/v3/ticker/24hr", "symbols=%5B%22BTCUSDT%22,%22ETHUSDT%22%5D")],
        marketID: { $0.base + $0.quote }, hasBidAsk: true,
        body: { rows in
            "[" + rows.map {
                #"{"symbol":"\#($0.pair.base + $0.pair.quote)","priceChange":"1.0","lastPrice":"\#($0.last)","bidPrice":"\#($0.bid)","askPrice":"\#($0.ask)","openTime":1709952420116,"closeTime":1710038820176,"count":5}"#
            }.joined(separator: ",") + "]"
        },
        apiError: (400, #"{"code":-1100,"msg":"Illegal characters found in parameter 'symbols'."}"#))

    static let bybit = ExchangeCase(
        id: .bybit, quoteCurrency: "USDT", expectedRequests: [("/v5/market/tickers", "category=spot")],
        marketID: { $0.base + $0.quote }, hasBidAsk: true,
        body: { rows in
            #"{"retCode":0,"retMsg":"OK","result":{"category":"spot","list":["#
                + rows.map { #"{"symbol":"\#($0.pair.base + $0.pair.quote)","bid1Price":"\#($0.bid)","ask1Price":"\#($0.ask)","lastPrice":"\#($0.last)","volume24h":"1"}"# }
                .joined(separator: ",") + #"]},"retExtInfo":{},"time":1673859087947}"#
        },
        apiError: (200, #"{"retCode":10001,"retMsg":"params error","result":{},"retExtInfo":{},"time":1673859087947}"#))

    static let bitget = ExchangeCase(
        id: .bitget, quoteCurrency: "USDT", expectedRequests: [("/api/v2/spot/market/tickers", nil)],
        marketID: { $0.base + $0.quote }, hasBidAsk: true,
        body: { rows in
            #"{"code":"00000","msg":"success","requestTime":1700532903782,"data":["#
                + rows.map { #"{"symbol":"\#($0.pair.base + $0.pair.quote)","lastPr":"\#($0.last)","bidPr":"\#($0.bid)","askPr":"\#($0.ask)","ts":"1700532903261"}"# }
                .joined(separator: ",") + "]}"
        },
        apiError: (400, #"{"code":"40034","msg":"Parameter does not exist","requestTime":1700532903782,"data":null}"#))

    static let okx = ExchangeCase(
        id: .okx, quoteCurrency: "USDT", expectedRequests: [("/api/v5/market/tickers", "instType=SPOT")],
        marketID: { "\($0.base)-\($0.quote)" }, hasBidAsk: true,
        body: { rows in
            #"{"code":"0","msg":"","data":["#
                + rows.map { #"{"instType":"SPOT","instId":"\#($0.pair.base)-\#($0.pair.quote)","last":"\#($0.last)","askPx":"\#($0.ask)","bidPx":"\#($0.bid)","ts":"1621441741434"}"# }
                .joined(separator: ",") + "]}"
        },
        apiError: (200, #"{"code":"50011","msg":"Too Many Requests","data":[]}"#))

    static let upbit = ExchangeCase(
        id: .upbit, quoteCurrency: "KRW", expectedRequests: [("/v1/ticker", "markets=KRW-BTC,KRW-ETH")],
        marketID: { "\($0.quote)-\($0.base)" }, hasBidAsk: false,
        body: { rows in
            "[" + rows.map {
                #"{"market":"\#($0.pair.quote)-\#($0.pair.base)","trade_timestamp":1753894995076,"trade_price":\#(jsonNumberOrString($0.last)),"change":"FALL","timestamp":1753894995113}"#
            }.joined(separator: ",") + "]"
        },
        apiError: (400, #"{"error":{"name":"validation_error","message":"markets is invalid"}}"#))

    static let bithumb = ExchangeCase(
        id: .bithumb, quoteCurrency: "KRW", expectedRequests: [("/public/ticker/ALL_KRW", nil)],
        marketID: { "\($0.base)_\($0.quote)" }, hasBidAsk: false,
        body: { rows in
            #"{"status":"0000","data":{"#
                + rows.map { #""\#($0.pair.base)":{"opening_price":"1","closing_price":"\#($0.last)","units_traded":"2"}"# }.map { $0 + "," }.joined()
                + #""date":"1664986909098"}}"#
        },
        apiError: (200, #"{"status":"5600","message":"Temporary maintenance"}"#))

    static let kraken = ExchangeCase(
        id: .kraken, quoteCurrency: "USD", expectedRequests: [("/0/public/Ticker", "pair=ETHUSD,XBTUSD")],
        marketID: { ["BTC": "XXBTZUSD", "ETH": "XETHZUSD", "LTC": "XLTCZUSD"][$0.base] ?? $0.base + $0.quote }, hasBidAsk: true,
        body: { rows in
            let names = ["BTC": "XXBTZUSD", "ETH": "XETHZUSD", "LTC": "XLTCZUSD"]
            return #"{"error":[],"result":{"#
                + rows.map {
                    #""\#(names[$0.pair.base] ?? "?")":{"a":["\#($0.ask)","1","1.000"],"b":["\#($0.bid)","2","2.000"],"c":["\#($0.last)","0.1"],"v":["1","2"],"t":[25646,28278],"o":"1"}"#
                }.joined(separator: ",") + "}}"
        },
        apiError: (200, #"{"error":["EService:Unavailable"]}"#))

    static let coinbase = ExchangeCase(
        id: .coinbase, quoteCurrency: "USD",
        expectedRequests: [("/products/BTC-USD/ticker", nil), ("/products/ETH-USD/ticker", nil)],
        marketID: { "\($0.base)-\($0.quote)" }, hasBidAsk: true,
        body: { rows in
            guard let row = rows.first else { return "{}" }
            return #"{"ask":"\#(row.ask)","bid":"\#(row.bid)","volume":"1207.5","trade_id":18502105,"price":"\#(row.last)","size":"0.007","time":"2024-03-13T11:10:41.270099Z"}"#
        },
        apiError: (400, #"{"message":"Invalid product_id"}"#))
}

/// Upbit sends JSON numbers; anything that is not one (`NaN`) is sent as a string.
private func jsonNumberOrString(_ text: String) -> String {
    text.range(of: #"^-?[0-9]+(\.[0-9]+)?$"#, options: .regularExpression) != nil ? text : "\"\(text)\""
}
