import Foundation
import MarketAlertCore
import MarketAlertExchanges
import MarketAlertKit
import MarketAlertTestSupport
import Testing

/// v3 `min_volume_24h`: the bulk tickers' 24 h volume in the quote currency, by the market id the market
/// list uses, on recorded bodies (`Tests/Fixtures`, see PROVENANCE.md). A bad number is an unknown volume,
/// never zero and never a failure of the body; an empty or refused answer is a failure.
@Suite struct MarketVolumeDecodeTests {
    /// `/v1/ticker/all` answers rows of `/v1/ticker`'s shape; the recorded `/v1/ticker` body stands for it.
    @Test func upbitVolumesAreTheTwentyFourHourTradePriceByMarketCode() throws {
        let volumes = try UpbitVolumes.decode(try Fixtures.data("upbit/ticker-KRW-BTC-ETH.json"), source: "upbit")
        #expect(volumes == ["KRW-BTC": 167_740_032_580.71786, "KRW-ETH": 219_851_544_443.94135])
    }

    @Test func binanceVolumesAreQuoteVolumesBySymbol() throws {
        let volumes = try BinanceVolumes.decode(try Fixtures.data("binance/ticker-24hr-all-20240310.json"), source: "binance")
        #expect(volumes.count == 2519)
        #expect(volumes["BTCUSDT"] == 1_537_040_739.3455314)
        #expect(volumes["ETHBTC"] == 1159.60641773)
    }

    @Test func bithumbVolumesAreKeyedByTheV1MarketCode() throws {
        let volumes = try BithumbVolumes.decode(try Fixtures.data("bithumb/public-ticker-ALL_KRW-trimmed-20221005.json"), source: "bithumb")
        #expect(volumes == ["KRW-BTC": 57_648_234_983.3066])
    }

    @Test func okxVolumesAreTheQuoteCurrencyVolumeByInstrument() throws {
        let volumes = try OKXVolumes.decode(try Fixtures.data("okx/market-tickers-SPOT-ccxtsrc.json"), source: "okx")
        #expect(volumes == ["BCD-BTC": 9.2877])
    }

    @Test func bybitVolumesAreTheTurnoverBySymbol() throws {
        let volumes = try BybitVolumes.decode(try Fixtures.data("bybit/tickers-spot.json"), source: "bybit")
        #expect(volumes == ["BTCUSDT": 243_765_620.65899866])
    }

    @Test func bitgetVolumesAreTheQuoteVolumeBySymbol() throws {
        let volumes = try BitgetVolumes.decode(try Fixtures.data("bitget/spot-market-tickers-BTCUSDT-ccxtsrc.json"), source: "bitget")
        #expect(volumes == ["BTCUSDT": 519_127_705.303])
    }

    /// Kraken sends the base volume (`v[1]`) and its volume-weighted price (`p[1]`) over the last 24 h; the
    /// quote volume is their product, keyed by the pair key the market list uses.
    @Test func krakenVolumesAreBaseVolumeTimesTheVolumeWeightedPrice() throws {
        let volumes = try KrakenVolumes.decode(try Fixtures.data("kraken/ticker.json"), source: "kraken")
        #expect(volumes == ["XETHZUSD": 35692.20596751 * 3324.16514, "XXBTZUSD": 6253.84063618 * 64670.01016])
        let lastPriceOnly = #"{"error":[],"result":{"SOLUSD":{"c":["150.5","1"],"v":["10","20"]},"BADUSD":{"c":["x"],"v":["1","2"]}}}"#
        #expect(try KrakenVolumes.decode(Data(lastPriceOnly.utf8), source: "kraken") == ["SOLUSD": 3010])
    }

    @Test func aBadNumberIsAnUnknownVolume() throws {
        let body = #"[{"symbol":"AUSDT","quoteVolume":"NaN"},{"symbol":"BUSDT","quoteVolume":"-3"},{"symbol":"CUSDT","quoteVolume":null},{"symbol":"DUSDT","quoteVolume":"12.5"},{"symbol":"EUSDT"}]"#
        #expect(try BinanceVolumes.decode(Data(body.utf8), source: "binance") == ["DUSDT": 12.5])
    }

    @Test(arguments: [
        ("upbit", "[]", SourceError.Kind.empty),
        ("upbit", #"{"error":{"name":"too_many_requests","message":"slow down"}}"#, .api),
        ("binance", "[]", .empty),
        ("binance", #"[{"symbol":"BTCUSDT","quoteVolume":"1"#, .decode),
        ("bithumb", #"{"status":"0000","data":{"date":"1664986909098"}}"#, .empty),
        ("bithumb", #"{"status":"5600","message":"Please try again"}"#, .api),
        ("okx", #"{"code":"0","msg":"","data":[]}"#, .empty),
        ("okx", #"{"code":"50011","msg":"Too Many Requests","data":[]}"#, .api),
        ("okx", #"{"code":"0","msg":"","data":[{"instId":"BTC-USDT","volCcy24h":"1"#, .decode),
        ("bybit", #"{"retCode":0,"retMsg":"OK","result":{"category":"spot","list":[]},"time":1}"#, .empty),
        ("bybit", #"{"retCode":10006,"retMsg":"Too many visits!","result":{},"time":1}"#, .api),
        ("bybit", "<html>502</html>", .decode),
        ("bitget", #"{"code":"00000","msg":"success","data":[]}"#, .empty),
        ("bitget", #"{"code":"40034","msg":"Parameter does not exist","data":null}"#, .api),
        ("kraken", #"{"error":[],"result":{}}"#, .empty),
        ("kraken", #"{"error":["EService:Unavailable"]}"#, .api),
        ("kraken", #"{"error":[],"result":{"XXBTZUSD":{"v":["1","#, .decode),
    ])
    func emptyCutOrRefusedAnswersAreFailures(exchange: String, body: String, kind: SourceError.Kind) {
        let data = Data(body.utf8)
        do throws(SourceError) {
            let volumes = switch exchange {
            case "upbit": try UpbitVolumes.decode(data, source: exchange)
            case "binance": try BinanceVolumes.decode(data, source: exchange)
            case "okx": try OKXVolumes.decode(data, source: exchange)
            case "bybit": try BybitVolumes.decode(data, source: exchange)
            case "bitget": try BitgetVolumes.decode(data, source: exchange)
            case "kraken": try KrakenVolumes.decode(data, source: exchange)
            default: try BithumbVolumes.decode(data, source: exchange)
            }
            Issue.record("decoded \(volumes) from \(body)")
        } catch {
            #expect(error.kind == kind, "\(error)")
        }
    }
}
