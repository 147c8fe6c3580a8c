import MarketAlertCore
import MarketAlertIO
import Testing

@Suite struct KrakenPairNamesTests {
    @Test func requestNamesUseKrakensAssetCodes() {
        #expect(KrakenPairNames.requestName(MarketPair(base: "BTC", quote: "USD")) == "XBTUSD")
        #expect(KrakenPairNames.requestName(MarketPair(base: "DOGE", quote: "USD")) == "XDGUSD")
        #expect(KrakenPairNames.requestName(MarketPair(base: "ETH", quote: "BTC")) == "ETHXBT")
        #expect(KrakenPairNames.requestName(MarketPair(base: "SOL", quote: "EUR")) == "SOLEUR")
    }

    @Test(arguments: [
        ("XXBTZUSD", "BTC", "USD"), ("XBTUSD", "BTC", "USD"), ("XETHZUSD", "ETH", "USD"), ("XETHXXBT", "ETH", "BTC"),
        ("XXDGZUSD", "DOGE", "USD"), ("XDGUSD", "DOGE", "USD"), ("USDTZUSD", "USDT", "USD"), ("SOLUSD", "SOL", "USD"),
        ("XXRPZEUR", "XRP", "EUR"), ("ETHUSDT", "ETH", "USDT"),
    ])
    func responseKeysMapBackToTheWatchedPair(key: String, base: String, quote: String) {
        let watched: Set<MarketPair> = [
            MarketPair(base: "BTC", quote: "USD"), MarketPair(base: "ETH", quote: "USD"), MarketPair(base: "ETH", quote: "BTC"),
            MarketPair(base: "DOGE", quote: "USD"), MarketPair(base: "USDT", quote: "USD"), MarketPair(base: "SOL", quote: "USD"),
            MarketPair(base: "XRP", quote: "EUR"), MarketPair(base: "ETH", quote: "USDT"),
        ]
        #expect(KrakenPairNames.index(watched)[key] == MarketPair(base: base, quote: quote))
    }

    @Test func unrelatedKeysMatchNothing() {
        let index = KrakenPairNames.index([MarketPair(base: "BTC", quote: "USD")])
        #expect(index["XETHZUSD"] == nil)
        #expect(index["XXBTZEUR"] == nil)
    }
}
