import Foundation
import MarketAlertCore
import MarketAlertExchanges
import MarketAlertKit
import MarketAlertTestSupport
import Testing

/// The market-list decoders on recorded bodies (`Tests/Fixtures`, see PROVENANCE.md), and the answers that must
/// be a source failure, never "every market was delisted".
@Suite struct MarketListDecodeTests {
    @Test func upbitRowsAreQuoteDashBase() throws {
        let markets = try UpbitMarketList.decode(try Fixtures.data("upbit/market-all-row-coincenter.json"), exchange: .upbit)
        #expect(markets == [ListedMarket(market: "KRW-BTC", asset: "BTC", quote: "KRW")])
        // Bithumb's v1 list has the same rows and goes through the same decoder.
        let bithumb = try UpbitMarketList.decode(try Fixtures.data("upbit/market-all-row-coincenter.json"), exchange: .bithumb)
        #expect(bithumb.map(\.market) == ["KRW-BTC"])
    }

    @Test func binanceCountsTradingSymbolsOnly() throws {
        let recorded = try BinanceMarketList.decode(try Fixtures.data("binance/exchangeInfo-20180312-gobinance.json"), exchange: .binance)
        #expect(recorded == [
            ListedMarket(market: "ETHBTC", asset: "ETH", quote: "BTC"), ListedMarket(market: "LTCBTC", asset: "LTC", quote: "BTC"),
        ])
        let halted = #"{"symbols":[{"symbol":"LUNAUSDT","status":"BREAK","baseAsset":"LUNA","quoteAsset":"USDT"},{"symbol":"BTCUSDT","status":"TRADING","baseAsset":"BTC","quoteAsset":"USDT"}]}"#
        #expect(try BinanceMarketList.decode(Data(halted.utf8), exchange: .binance).map(\.market) == ["BTCUSDT"])
    }

    @Test func okxCountsLiveSpotInstruments() throws {
        let recorded = try OKXMarketList.decode(try Fixtures.data("okx/public-instruments-SPOT-ccxtsrc.json"), exchange: .okx)
        #expect(recorded == [ListedMarket(market: "BTC-USDT", asset: "BTC", quote: "USDT")])
        let suspended = #"{"code":"0","msg":"","data":[{"instId":"LUNA-USDT","baseCcy":"LUNA","quoteCcy":"USDT","state":"suspend"},{"instId":"ETH-USDT","baseCcy":"ETH","quoteCcy":"USDT","state":"live"},{"instId":"","instType":"SPOT","state":"live"}]}"#
        #expect(try OKXMarketList.decode(Data(suspended.utf8), exchange: .okx).map(\.market) == ["ETH-USDT"])
    }

    @Test func bybitCountsTradingSymbols() throws {
        let recorded = try BybitMarketList.decode(try Fixtures.data("bybit/market-instruments-info-spot-ccxtsrc.json"), exchange: .bybit)
        #expect(recorded == [ListedMarket(market: "BTCUSDT", asset: "BTC", quote: "USDT")])
        let halted = #"{"retCode":0,"retMsg":"OK","result":{"category":"spot","list":[{"symbol":"LUNAUSDT","baseCoin":"LUNA","quoteCoin":"USDT","status":"Closed"},{"symbol":"ETHUSDT","baseCoin":"ETH","quoteCoin":"USDT","status":"Trading"}],"nextPageCursor":""},"time":1}"#
        #expect(try BybitMarketList.decode(Data(halted.utf8), exchange: .bybit).map(\.market) == ["ETHUSDT"])
    }

    @Test func bitgetCountsOnlineSymbols() throws {
        let recorded = try BitgetMarketList.decode(try Fixtures.data("bitget/spot-public-symbols-ccxtsrc.json"), exchange: .bitget)
        #expect(recorded == [ListedMarket(market: "TRXUSDT", asset: "TRX", quote: "USDT")])
        let halted = #"{"code":"00000","msg":"success","data":[{"symbol":"LUNAUSDT","baseCoin":"LUNA","quoteCoin":"USDT","status":"halt"},{"symbol":"ETHUSDT","baseCoin":"ETH","quoteCoin":"USDT","status":"online"}]}"#
        #expect(try BitgetMarketList.decode(Data(halted.utf8), exchange: .bitget).map(\.market) == ["ETHUSDT"])
    }

    /// Kraken's pair key is the market id (the key its tickers answer under); asset and quote come from
    /// `wsname` in our spelling (`XBT` → `BTC`), not from the prefixed `base`/`quote` (`XETH`).
    @Test func krakenNamesPairsByKeyAndAssetsByWsname() throws {
        let recorded = try KrakenMarketList.decode(try Fixtures.data("kraken/public-AssetPairs-ccxtsrc.json"), exchange: .kraken)
        #expect(recorded == [ListedMarket(market: "ADAETH", asset: "ADA", quote: "ETH")])
        let mixed = #"{"error":[],"result":{"XXBTZUSD":{"altname":"XBTUSD","wsname":"XBT/USD","base":"XXBT","quote":"ZUSD","status":"online"},"XDGUSD":{"altname":"XDGUSD","wsname":"XDG/USD","status":"online"},"LUNAUSD":{"altname":"LUNAUSD","wsname":"LUNA/USD","status":"cancel_only"},"NOWSUSD":{"altname":"NOWSUSD","base":"NOWS","quote":"ZUSD"}}}"#
        #expect(try KrakenMarketList.decode(Data(mixed.utf8), exchange: .kraken) == [
            ListedMarket(market: "XDGUSD", asset: "DOGE", quote: "USD"), ListedMarket(market: "XXBTZUSD", asset: "BTC", quote: "USD"),
        ])
    }

    /// The auction product `BTCAUCTION-USD` shares BTC/USD with the real market and is left out.
    @Test func coinbaseCountsOnlineTradingProductsNamedBaseDashQuote() throws {
        let recorded = try CoinbaseMarketList.decode(try Fixtures.data("coinbase/products-ccxtsrc.json"), exchange: .coinbase)
        #expect(recorded == [ListedMarket(market: "BTC-USD", asset: "BTC", quote: "USD")])
        let disabled = #"[{"id":"LUNA-USD","base_currency":"LUNA","quote_currency":"USD","status":"delisted","trading_disabled":true},{"id":"OLD-USD","base_currency":"OLD","quote_currency":"USD","status":"online","trading_disabled":true},{"id":"ETH-USD","base_currency":"ETH","quote_currency":"USD","status":"online","trading_disabled":false}]"#
        #expect(try CoinbaseMarketList.decode(Data(disabled.utf8), exchange: .coinbase).map(\.market) == ["ETH-USD"])
    }

    @Test(arguments: [
        ("upbit", "[]", SourceError.Kind.empty),
        ("upbit", #"[{"market":"KRW-BTC","korean_name":"비트"#, .decode),
        ("upbit", #"{"error":{"name":"too_many_requests","message":"slow down"}}"#, .api),
        ("binance", #"{"symbols":[]}"#, .empty),
        ("binance", #"{"symbols":[{"symbol":"BTCUSDT","status":"BREAK","baseAsset":"BTC","quoteAsset":"USDT"}]}"#, .empty),
        ("binance", #"{"timezone":"UTC","symbols":[{"symbol":"ETHBTC","status":"TRAD"#, .decode),
        ("okx", #"{"code":"0","msg":"","data":[]}"#, .empty),
        ("okx", #"{"code":"50011","msg":"Too Many Requests","data":[]}"#, .api),
        ("okx", #"{"code":"0","msg":"","data":[{"instId":"BTC-USDT","baseCcy":"BT"#, .decode),
        ("okx", "<html><body>502 Bad Gateway</body></html>", .decode),
        ("bybit", #"{"retCode":0,"retMsg":"OK","result":{"category":"spot","list":[]},"time":1}"#, .empty),
        ("bybit", #"{"retCode":10006,"retMsg":"Too many visits!","result":{},"time":1}"#, .api),
        ("bybit", #"{"retCode":0,"retMsg":"OK","result":{"list":[{"symbol":"BTCUSDT","status":"Trading","baseCoin":"BTC","quoteCoin":"USDT"}],"nextPageCursor":"p2"}}"#, .decode),
        ("bitget", #"{"code":"00000","msg":"success","data":[]}"#, .empty),
        ("bitget", #"{"code":"40034","msg":"Parameter does not exist","data":null}"#, .api),
        ("bitget", #"{"code":"00000","msg":"success","data":[{"symbol":"BTCUSDT","baseCoin":"BTC","status":"online"},{"sym"#, .decode),
        ("kraken", #"{"error":[],"result":{}}"#, .empty),
        ("kraken", #"{"error":["EGeneral:Too many requests"]}"#, .api),
        ("kraken", #"{"error":[],"result":{"XXBTZUSD":{"altname":"XBTUSD","wsname":"XB"#, .decode),
        ("coinbase", "[]", .empty),
        ("coinbase", #"{"message":"Public rate limit exceeded"}"#, .api),
        ("coinbase", #"[{"id":"BTC-USD","base_currency":"BTC","quote_currency":"US"#, .decode),
    ])
    func emptyCutOrRefusedListsAreSourceFailures(exchange: String, body: String, kind: SourceError.Kind) {
        let id = ExchangeID(exchange)
        let data = Data(body.utf8)
        do throws(SourceError) {
            let markets = switch exchange {
            case "binance": try BinanceMarketList.decode(data, exchange: id)
            case "okx": try OKXMarketList.decode(data, exchange: id)
            case "bybit": try BybitMarketList.decode(data, exchange: id)
            case "bitget": try BitgetMarketList.decode(data, exchange: id)
            case "kraken": try KrakenMarketList.decode(data, exchange: id)
            case "coinbase": try CoinbaseMarketList.decode(data, exchange: id)
            default: try UpbitMarketList.decode(data, exchange: id)
            }
            Issue.record("decoded \(markets) from \(body)")
        } catch {
            #expect(error.kind == kind, "\(error)")
            #expect(error.source == exchange)
        }
    }
}
