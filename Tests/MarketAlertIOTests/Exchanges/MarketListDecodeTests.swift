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

    @Test(arguments: [
        ("upbit", "[]", SourceError.Kind.empty),
        ("upbit", #"[{"market":"KRW-BTC","korean_name":"비트"#, .decode),
        ("upbit", #"{"error":{"name":"too_many_requests","message":"slow down"}}"#, .api),
        ("binance", #"{"symbols":[]}"#, .empty),
        ("binance", #"{"symbols":[{"symbol":"BTCUSDT","status":"BREAK","baseAsset":"BTC","quoteAsset":"USDT"}]}"#, .empty),
        ("binance", #"{"timezone":"UTC","symbols":[{"symbol":"ETHBTC","status":"TRAD"#, .decode),
    ])
    func emptyCutOrRefusedListsAreSourceFailures(exchange: String, body: String, kind: SourceError.Kind) {
        let id = ExchangeID(exchange)
        let data = Data(body.utf8)
        do throws(SourceError) {
            let markets = exchange == "binance"
                ? try BinanceMarketList.decode(data, exchange: id) : try UpbitMarketList.decode(data, exchange: id)
            Issue.record("decoded \(markets) from \(body)")
        } catch {
            #expect(error.kind == kind, "\(error)")
            #expect(error.source == exchange)
        }
    }
}
