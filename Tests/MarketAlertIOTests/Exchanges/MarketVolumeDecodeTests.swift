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
    ])
    func emptyCutOrRefusedAnswersAreFailures(exchange: String, body: String, kind: SourceError.Kind) {
        let data = Data(body.utf8)
        do throws(SourceError) {
            let volumes = switch exchange {
            case "upbit": try UpbitVolumes.decode(data, source: exchange)
            case "binance": try BinanceVolumes.decode(data, source: exchange)
            default: try BithumbVolumes.decode(data, source: exchange)
            }
            Issue.record("decoded \(volumes) from \(body)")
        } catch {
            #expect(error.kind == kind, "\(error)")
        }
    }
}
