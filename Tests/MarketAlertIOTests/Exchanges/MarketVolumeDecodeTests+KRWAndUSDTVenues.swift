import Foundation
import MarketAlertCore
import MarketAlertExchanges
import MarketAlertKit
import MarketAlertTestSupport
import Testing

/// The 24 h volumes of Coinone, Gate, KuCoin, HTX and Bitfinex on their recorded bulk tickers, in the quote
/// currency and by the market id each market list uses; their empty and refused answers are failures.
extension MarketVolumeDecodeTests {
    static func decodeVolumes(_ exchange: String, _ body: Data) throws(SourceError) -> [String: Double] {
        switch exchange {
        case "coinone": return try CoinoneVolumes.decode(body, source: exchange)
        case "gate": return try GateVolumes.decode(body, source: exchange)
        case "kucoin": return try KuCoinVolumes.decode(body, source: exchange)
        case "htx": return try HTXVolumes.decode(body, source: exchange)
        default: return try BitfinexVolumes.decode(body, source: exchange)
        }
    }

    @Test(arguments: [
        // Coinone's `quote_volume` (KRW), by base; Gate's `quote_volume`; KuCoin's `volValue` (not `vol`, the
        // base amount); HTX's `vol` (not `amount`); funding rows (`fUSD`) have no volume.
        ("coinone", "coinone/ticker_new-KRW-ccxtsrc.json", ["BTC": 11_349_804_285.3859]),
        ("gate", "gate/spot-tickers-KFC_USDT-ccxtsrc.json", ["KFC_USDT": 8807.40299875455]),
        ("kucoin", "kucoin/market-allTickers-ccxtsrc.json", ["BTC-USDT": 25_984_946.157790431]),
        ("htx", "htx/market-tickers-ccxtsrc.json", ["hbcbtc": 0.0618599229]),
    ])
    func recordedTickersGiveQuoteVolumesByListedID(exchange: String, fixture: String, expected: [String: Double]) throws {
        #expect(try Self.decodeVolumes(exchange, try Fixtures.data(fixture)) == expected)
    }

    @Test func bitfinexVolumeIsBaseVolumeTimesLastPrice() throws {
        let volumes = try BitfinexVolumes.decode(try Fixtures.data("bitfinex/tickers-ALL-bothan.json"), source: "bitfinex")
        // tBTCUSD: VOLUME 661.88869229 BTC at LAST_PRICE 101550 USD.
        #expect(volumes == ["tBTCUSD": 661.88869229 * 101_550])
        let odd = #"[["tAUSD",1,1,1,1,0,0,2,null,1,1],["tBUSD",1,1,1,1,0,0,2,-3,1,1],["tCUSD",1,1,1,1,0,0,0,5,1,1],["tTESTBTC:TESTUSD",1,1,1,1,0,0,2,4,1,1],["tDUSD",1,1,1,1,0,0,2,4,1,1]]"#
        #expect(try BitfinexVolumes.decode(Data(odd.utf8), source: "bitfinex") == ["tDUSD": 8])
    }

    @Test(arguments: [
        ("coinone", #"{"result":"success","error_code":"0","tickers":[]}"#, SourceError.Kind.empty),
        ("coinone", #"{"result":"error","error_code":"4","error_msg":"Blocked user access."}"#, .api),
        ("gate", "[]", .empty),
        ("gate", #"{"label":"TOO_MANY_REQUESTS","message":"Request Rate limit Exceeded"}"#, .api),
        ("kucoin", #"{"code":"200000","data":{"time":1602832092060,"ticker":[]}}"#, .empty),
        ("kucoin", #"{"code":"400100","msg":"Parameter Error"}"#, .api),
        ("htx", #"{"status":"ok","data":[],"ts":1639547261293}"#, .empty),
        ("htx", #"{"status":"error","err-code":"bad-request","err-msg":"invalid"}"#, .api),
        ("bitfinex", "[]", .empty),
        ("bitfinex", #"["error",10020,"symbol: invalid"]"#, .api),
        ("bitfinex", #"[["tBTCUSD",101530,39.76548266,101540"#, .decode),
        ("htx", "<html><body><h1>502 Bad Gateway</h1></body></html>", .decode),
    ])
    func emptyCutOrRefusedTickersOfTheOtherVenuesAreFailures(exchange: String, body: String, kind: SourceError.Kind) {
        do throws(SourceError) {
            let volumes = try Self.decodeVolumes(exchange, Data(body.utf8))
            Issue.record("decoded \(volumes) from \(body)")
        } catch {
            #expect(error.kind == kind, "\(error)")
            #expect(error.source == exchange)
        }
    }
}
