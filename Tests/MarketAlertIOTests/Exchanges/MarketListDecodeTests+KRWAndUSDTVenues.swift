import Foundation
import MarketAlertCore
import MarketAlertExchanges
import MarketAlertKit
import MarketAlertTestSupport
import Testing

/// The market lists of Coinone, Gate, KuCoin, HTX and Bitfinex on recorded bodies (`Tests/Fixtures`, see
/// PROVENANCE.md; HTX's and Bitfinex's are in the documented shape, no recorded answer was found), and their
/// answers that must be a source failure, never "every market was delisted".
extension MarketListDecodeTests {
    static func decodeList(_ exchange: String, _ body: Data) throws(SourceError) -> [ListedMarket] {
        let id = ExchangeID(exchange)
        switch exchange {
        case "coinone": return try CoinoneMarketList.decode(body, exchange: id)
        case "gate": return try GateMarketList.decode(body, exchange: id)
        case "kucoin": return try KuCoinMarketList.decode(body, exchange: id)
        case "htx": return try HTXMarketList.decode(body, exchange: id)
        default: return try BitfinexMarketList.decode(body, exchange: id)
        }
    }

    @Test(arguments: [
        ("coinone", "coinone/ticker_new-KRW-ccxtsrc.json", [ListedMarket(market: "BTC", asset: "BTC", quote: "KRW")]),
        ("gate", "gate/spot-currency_pairs-ccxtsrc.json", [ListedMarket(market: "QTUM_ETH", asset: "QTUM", quote: "ETH")]),
        ("kucoin", "kucoin/v2-symbols-ccxtsrc.json", [ListedMarket(market: "XLM-USDT", asset: "XLM", quote: "USDT")]),
        // The offline `xrp3susdt` row is not listed.
        ("htx", "htx/v2-settings-common-symbols-docshape.json", [ListedMarket(market: "btcusdt", asset: "BTC", quote: "USDT")]),
        // Bitfinex codes read back as ours (UST is USDT, LUNA2 is LUNA); the test pair is not listed.
        ("bitfinex", "bitfinex/conf-pub-list-pair-exchange-docshape.json", [
            ListedMarket(market: "tBTCUSD", asset: "BTC", quote: "USD"), ListedMarket(market: "tBTCUST", asset: "BTC", quote: "USDT"),
            ListedMarket(market: "tETHBTC", asset: "ETH", quote: "BTC"), ListedMarket(market: "tAVAX:USD", asset: "AVAX", quote: "USD"),
            ListedMarket(market: "tLUNA2:UST", asset: "LUNA", quote: "USDT"),
        ]),
    ])
    func recordedListsNameTheTickersMarketIDs(exchange: String, fixture: String, expected: [ListedMarket]) throws {
        #expect(try Self.decodeList(exchange, try Fixtures.data(fixture)) == expected)
    }

    @Test func aListedMarketIDIsTheOneTheTickerSourceAsksFor() throws {
        let registry = ExchangeRegistry.standard
        let pairs: [(String, MarketPair, String)] = [
            ("gate", MarketPair(base: "QTUM", quote: "ETH"), "gate/spot-currency_pairs-ccxtsrc.json"),
            ("kucoin", MarketPair(base: "XLM", quote: "USDT"), "kucoin/v2-symbols-ccxtsrc.json"),
            ("htx", MarketPair(base: "BTC", quote: "USDT"), "htx/v2-settings-common-symbols-docshape.json"),
            ("coinone", MarketPair(base: "BTC", quote: "KRW"), "coinone/ticker_new-KRW-ccxtsrc.json"),
            ("bitfinex", MarketPair(base: "LUNA", quote: "USDT"), "bitfinex/conf-pub-list-pair-exchange-docshape.json"),
        ]
        for (exchange, pair, fixture) in pairs {
            let descriptor = try #require(registry[ExchangeID(exchange)])
            let listed = try Self.decodeList(exchange, try Fixtures.data(fixture))
            #expect(listed.contains { $0.market == descriptor.marketID(pair) && $0.asset == pair.base && $0.quote == pair.quote }, "\(exchange)")
        }
    }

    @Test(arguments: [
        ("coinone", #"{"result":"success","error_code":"0","server_time":1701073358487,"tickers":[]}"#, SourceError.Kind.empty),
        ("coinone", #"{"result":"error","error_code":"4","error_msg":"Blocked user access."}"#, .api),
        ("coinone", #"{"result":"success","error_code":"0","tickers":[{"quote_currency":"krw","target_cur"#, .decode),
        ("gate", "[]", .empty),
        ("gate", #"[{"id":"LUNA_USDT","base":"LUNA","quote":"USDT","trade_status":"untradable"}]"#, .empty),
        ("gate", #"{"label":"TOO_MANY_REQUESTS","message":"Request Rate limit Exceeded"}"#, .api),
        ("gate", #"[{"id":"BTC_USDT","base":"BTC","quote":"US"#, .decode),
        ("kucoin", #"{"code":"200000","data":[]}"#, .empty),
        ("kucoin", #"{"code":"200000","data":[{"symbol":"BTC-USDT","baseCurrency":"BTC","quoteCurrency":"USDT","enableTrading":false}]}"#, .empty),
        ("kucoin", #"{"code":"429000","msg":"Too Many Requests"}"#, .api),
        ("kucoin", #"{"code":"200000"}"#, .decode),
        ("htx", #"{"status":"ok","data":[],"ts":"1641880897191","full":1}"#, .empty),
        ("htx", #"{"status":"ok","data":[{"sc":"lunausdt","bc":"luna","qc":"usdt","state":"offline"}]}"#, .empty),
        ("htx", #"{"status":"error","err-code":"invalid-parameter","err-msg":"invalid parameter"}"#, .api),
        ("htx", #"{"status":"ok","data":[{"sc":"btcusdt","bc":"#, .decode),
        ("bitfinex", "[[]]", .empty),
        ("bitfinex", "[]", .empty),
        ("bitfinex", #"[["TESTBTC:TESTUSD","TESTBTC:TESTUSDT"]]"#, .empty),
        ("bitfinex", #"["error",10020,"symbol: invalid"]"#, .api),
        ("bitfinex", #"[["BTCUSD","ETHU"#, .decode),
        ("coinone", "<html><body><h1>502 Bad Gateway</h1></body></html>", .decode),
        ("gate", "<html><body><h1>502 Bad Gateway</h1></body></html>", .decode),
        ("kucoin", "<html><body><h1>502 Bad Gateway</h1></body></html>", .decode),
        ("htx", "<html><body><h1>502 Bad Gateway</h1></body></html>", .decode),
        ("bitfinex", "<html><body><h1>502 Bad Gateway</h1></body></html>", .decode),
    ])
    func emptyCutRefusedOrHTMLListsOfTheOtherVenuesAreSourceFailures(exchange: String, body: String, kind: SourceError.Kind) {
        do throws(SourceError) {
            let markets = try Self.decodeList(exchange, Data(body.utf8))
            Issue.record("decoded \(markets) from \(body)")
        } catch {
            #expect(error.kind == kind, "\(error)")
            #expect(error.source == exchange)
        }
    }

    /// The peers of the mock servers (`<Name>Wire.swift`) answer each venue's list path with the markets of
    /// their book, in the shape the market list decodes back to exactly those markets (ids as the tickers').
    @Test(arguments: [
        ("coinone", "/public/v2/ticker_new/KRW", "KRW"), ("gate", "/api/v4/spot/currency_pairs", "USDT"),
        ("kucoin", "/api/v2/symbols", "USDT"), ("htx", "/v2/settings/common/symbols", "USDT"),
        ("bitfinex", "/v2/conf/pub:list:pair:exchange", "USDT"),
    ])
    func thePeersListAnswerDecodesToItsBook(exchange: String, path: String, quote: String) throws {
        let descriptor = try #require(ExchangeRegistry.standard[ExchangeID(exchange)])
        let pairs = ["BTC", "AVAX", "LUNA"].map { MarketPair(base: $0, quote: quote) }
        let rows = pairs.map {
            WireRow(base: $0.base, quote: $0.quote, last: "2", bid: "2", ask: "2", open: "2", high: "2", low: "2", volume: "1", quoteVolume: "2", timeMillis: 1_700_000_000_000)
        }
        let live = zip(pairs, rows).map { (id: descriptor.marketID($0.0), row: $0.1) }
        let book = WirePeerBook(live: { live }, row: { id in live.first { $0.id == id }?.row })
        let answer = try #require(descriptor.wire.rest.answer(WireRequest(path: path, nowMillis: 1_700_000_000_000), book))
        #expect(answer.status == 200)
        #expect(descriptor.wire.rest.startsPoll(WireRequest(path: path, nowMillis: 0), book) == (exchange == "coinone"))
        let listed = try Self.decodeList(exchange, Data(answer.body.utf8))
        #expect(listed == pairs.map { ListedMarket(market: descriptor.marketID($0), asset: $0.base, quote: $0.quote) })
    }
}
