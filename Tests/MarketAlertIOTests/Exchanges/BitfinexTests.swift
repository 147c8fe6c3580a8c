import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// Bitfinex's own rules: its codes (`UST` is Tether), test pairs and funding rows never quotes, errors as
/// arrays, channel numbers per connection, and the `info` events.
@Suite struct BitfinexTests {
    static let receivedAt = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func marketIDsUseBitfinexCodesAndAColonForLongCodes() {
        #expect(BitfinexTickerSource.symbol(MarketPair(base: "BTC", quote: "USDT")) == "tBTCUST")
        #expect(BitfinexTickerSource.symbol(MarketPair(base: "BTC", quote: "USD")) == "tBTCUSD")
        #expect(BitfinexTickerSource.symbol(MarketPair(base: "AVAX", quote: "USDT")) == "tAVAX:UST")
        #expect(BitfinexTickerSource.symbol(MarketPair(base: "DASH", quote: "USD")) == "tDSHUSD")
        #expect(BitfinexTickerSource.isTestPair("tTESTBTC:TESTUSD"))
    }

    @Test func restReadsTradingPairsOnlyAndNeverATestPair() throws {
        let body = Data(#"[["tBTCUST",67990,1.5,68000,2.25,5,0.0001,67995,10,68100,67900],["tTESTBTC:TESTUSD",60400,1,60406,1,0,0,60410,1,1,1],["fUST",0.0001,0.0002,120,1,0.00008,2,1,0,0,0.00005,1,0.0001,0.00002,null,null,1]]"#.utf8)
        let watched: Set<MarketPair> = [MarketPair(base: "BTC", quote: "USDT"), MarketPair(base: "TESTBTC", quote: "TESTUSD")]
        let quotes = try BitfinexTickerSource.decode(body, watched: watched, receivedAt: Self.receivedAt)
        #expect(quotes.map(\.market) == ["tBTCUST"])
        #expect(quotes.first?.quote == "USDT")
        #expect(quotes.first?.last?.exact == Decimal(string: "67995"))
        #expect(quotes.first?.exchangeTime == nil)
    }

    @Test func anErrorArrayIsAnAPIError() {
        let body = Data(#"["error",10020,"symbol: invalid"]"#.utf8)
        let error = sourceError { () throws(SourceError) in try BitfinexTickerSource.decode(body, watched: [MarketPair(base: "BTC", quote: "USD")], receivedAt: Self.receivedAt) }
        #expect(error?.kind == .api)
        #expect(error?.message == "error 10020: symbol: invalid")
        #expect(BitfinexTickerSource.apiError(in: body)?.kind == .api)
        let truncated = sourceError { () throws(SourceError) in try BitfinexTickerSource.decode(Data(#"[["tBTCUSD",1"#.utf8), watched: [MarketPair(base: "BTC", quote: "USD")], receivedAt: Self.receivedAt) }
        #expect(truncated?.kind == .decode)
    }

    static func decode(_ text: String, _ table: inout StreamMarketTable) -> StreamFrame {
        table.beginFrame()
        return Array(text.utf8).withUnsafeBytes { BitfinexStream().decode($0, into: &table, receivedAt: receivedAt) }
    }

    @Test func channelNumbersBelongToTheirConnection() {
        var table = StreamMarketTable(
            pairs: [MarketPair(base: "BTC", quote: "USD"), MarketPair(base: "ETH", quote: "USD")], marketID: BitfinexTickerSource.symbol)
        table.connection = 1
        #expect(Self.decode(#"{"event":"subscribed","channel":"ticker","chanId":7,"symbol":"tBTCUSD","pair":"BTCUSD"}"#, &table)
            == .acked(keys: ["ticker:tBTCUSD"], complete: false))
        table.connection = 2
        #expect(Self.decode(#"{"event":"subscribed","channel":"ticker","chanId":7,"symbol":"tETHUSD","pair":"ETHUSD"}"#, &table)
            == .acked(keys: ["ticker:tETHUSD"], complete: false))
        #expect(Self.decode("[7,[3500,1,3501,1,0,0,3500.5,1,1,1]]", &table) == .data)
        #expect(table.entries[table.touched[0]].market == "tETHUSD")
        table.connection = 1
        #expect(Self.decode("[7,[68000,1,68001,1,0,0,68000.5,1,1,1],42]", &table) == .data)
        #expect(table.entries[table.touched[0]].market == "tBTCUSD")
        #expect(Self.decode(#"[7,"hb"]"#, &table) == .heartbeat)
        #expect(Self.decode("[8,[1,1,2,1,0,0,1.5,1,1,1]]", &table) == .unwatched)
        // Connection 1 closes: its numbers go with it.
        table.forgetChannels(except: [2])
        #expect(Self.decode("[7,[68000,1,68001,1,0,0,68000.5,1,1,1]]", &table) == .unwatched)
        table.connection = 2
        #expect(Self.decode("[7,[3500,1,3501,1,0,0,3500.5,1,1,1]]", &table) == .data)
    }

    @Test func infoEventsReconnectOrPause() {
        var table = StreamMarketTable(pairs: [MarketPair(base: "BTC", quote: "USD")], marketID: BitfinexTickerSource.symbol)
        #expect(Self.decode(#"{"event":"info","version":2,"serverId":"083bd8d4-aca7-4690-a573-eabfc8103de8","platform":{"status":1}}"#, &table) == .heartbeat)
        #expect(Self.decode(#"{"event":"info","code":20051,"msg":"Stopping. Please try to reconnect"}"#, &table) == .shutdownNotice)
        #expect(Self.decode(#"{"event":"info","code":20060,"msg":"Entering in Maintenance mode. Please pause any activity and resume after receiving the info message 20061 (it should take 120 seconds at most)."}"#, &table) == .heartbeat)
        #expect(Self.decode(#"{"event":"info","code":20061,"msg":"Maintenance ended. You can resume normal activity. It is advised to unsubscribe/subscribe again all channels."}"#, &table) == .shutdownNotice)
        #expect(Self.decode(#"{"channel":"ticker","symbol":"tXYZUSD","event":"error","msg":"symbol: invalid","code":10300,"pair":"XYZUSD"}"#, &table)
            == .rejected(reason: "10300 symbol: invalid", markets: ["tXYZUSD"]))
        #expect(Self.decode(#"{"event":"error","msg":"Invalid event","code":10001}"#, &table) == .rejected(reason: "10001 Invalid event", markets: []))
    }

    @Test func aTestPairIsNeverSubscribed() {
        let subscription = BitfinexStream().subscription(for: ["tBTCUST", "tTESTBTC:TESTUSD"])
        #expect(subscription.messages == [#"{"event":"subscribe","channel":"ticker","symbol":"tBTCUST"}"#])
        #expect(subscription.acks == ["ticker:tBTCUST"])
    }
}
