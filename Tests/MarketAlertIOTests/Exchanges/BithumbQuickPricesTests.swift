import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// Bithumb's quick read of `ALL_<quote>` (`BithumbTickerSource.quickPrices`) must take the recorded answer,
/// read it as the careful path (`Envelope`) does, and leave every other answer to the careful path.
@Suite struct BithumbQuickPricesTests {
    static func described(_ prices: BithumbTickerSource.CoinPrices) -> String {
        let coins = prices.prices.map { "\($0.coin)=\($0.closing?.price?.exact.description ?? "-")" }
        return "\(coins.joined(separator: ",")) at \(prices.date.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) } ?? 0) of \(prices.coinCount)"
    }

    @Test func theRecordedAnswerIsReadQuicklyAndAsTheCarefulPathReadsIt() throws {
        let body = try Fixtures.data("bithumb/public-ticker-ALL_KRW-trimmed-20221005.json")
        let quick = try #require(BithumbTickerSource.quickPrices(body, coins: ["BTC", "ETH"]))
        #expect(Self.described(quick) == "BTC=28681000 at 1664986909098 of 1")
        #expect(Self.described(quick) == Self.described(try BithumbTickerSource.carefulPrices(body, coins: ["BTC", "ETH"])))
    }

    @Test func unwatchedCoinsAreCountedButNotRead() throws {
        let body = Data(#"{"status":"0000","data":{"XRP":{"closing_price":"abc"},"ETH":{"closing_price":null},"BTC":{"closing_price":"5"},"date":1664986909098}}"#.utf8)
        let quick = try #require(BithumbTickerSource.quickPrices(body, coins: ["BTC", "ETH"]))
        #expect(Self.described(quick) == "BTC=5,ETH=- at 1664986909098 of 3")
        #expect(Self.described(quick) == Self.described(try BithumbTickerSource.carefulPrices(body, coins: ["BTC", "ETH"])))
    }

    static let refused: [(why: String, body: String)] = [
        ("an error status", #"{"status":"5100","message":"Bad Request.(Auth Data)"}"#),
        ("no status", #"{"data":{"BTC":{"closing_price":"5"}}}"#),
        ("no data", #"{"status":"0000"}"#),
        ("a single-market ticker", #"{"status":"0000","data":{"closing_price":"5","date":"1664986909098"}}"#),
        ("a watched coin that is not an object", #"{"status":"0000","data":{"BTC":"5"}}"#),
        ("a repeated coin", #"{"status":"0000","data":{"BTC":{"closing_price":"5"},"BTC":{"closing_price":"6"}}}"#),
        ("an unusable price", #"{"status":"0000","data":{"BTC":{"closing_price":"0"}}}"#),
        ("a bad date", #"{"status":"0000","data":{"BTC":{"closing_price":"5"},"date":"yesterday"}}"#),
        ("a coin spelled with escapes", #"{"status":"0000","data":{"BT\u0043":{"closing_price":"5"}}}"#),
        ("truncated", #"{"status":"0000","data":{"BTC":{"closing_price":"5"}}"#),
    ]

    @Test func everyOtherAnswerIsLeftToTheCarefulPath() {
        for entry in Self.refused {
            #expect(BithumbTickerSource.quickPrices(Data(entry.body.utf8), coins: ["BTC"]) == nil, "\(entry.why)")
        }
    }
}
