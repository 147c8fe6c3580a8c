import Foundation
import MarketAlertConfigReader
import MarketAlertCore
import Testing

/// Which exchanges stream their best bid/ask on a channel of its own (#26 item 15: "a second channel a
/// `basis: last` rule may not need"): those a `mid` or `bidask` rule reads, and `fx.usdt_krw`'s sources (its
/// rate is a mid where there is one). Every other exchange streams its ticker alone.
@Suite struct BestBidAskConfigTests {
    private func settings(_ yaml: String) throws -> Settings { try ConfigLoader.parse(yaml: yaml).settings }

    @Test func lastRulesAloneWantNoBestBidAsk() throws {
        let s = try settings("""
            exchanges: { binance: {}, bybit: {}, htx: {} }
            premium:
              rules:
                - { name: a, assets: [btc], exchanges: [binance, bybit, htx], quotes: [usdt] }
                - { name: b, assets: [eth], exchanges: [binance, bybit], quotes: [usdt], basis: last }
            """)
        for exchange in [ExchangeID.binance, .bybit, .htx] {
            #expect(s.exchanges[exchange]?.bestBidAskWanted == false, "\(exchange)")
        }
    }

    @Test func aMidOrBidaskRuleWantsItOnItsExchangesOnly() throws {
        for basis in ["mid", "bidask"] {
            let s = try settings("""
                exchanges: { binance: {}, bybit: {}, htx: {} }
                premium:
                  rules:
                    - { name: a, assets: [btc], exchanges: [binance, bybit], quotes: [usdt], basis: \(basis) }
                    - { name: b, assets: [btc], exchanges: [bybit, htx], quotes: [usdt] }
                """)
            #expect(s.exchanges[.binance]?.bestBidAskWanted == true, "\(basis)")
            #expect(s.exchanges[.bybit]?.bestBidAskWanted == true, "\(basis)")
            #expect(s.exchanges[.htx]?.bestBidAskWanted == false, "\(basis)")
        }
    }

    @Test func aUSDTKRWSourceWantsIt() throws {
        let s = try settings("""
            exchanges: { upbit: {}, bithumb: {}, binance: {} }
            fx:
              providers: [{ name: dunamu }]
              usdt_krw: { exchanges: [bithumb] }
            premium:
              rules:
                - { name: k, assets: [btc], exchanges: [upbit, bithumb, binance], quotes: [krw, usdt] }
            """)
        #expect(s.exchanges[.bithumb]?.bestBidAskWanted == true)
        #expect(s.exchanges[.upbit]?.bestBidAskWanted == false)
        #expect(s.exchanges[.binance]?.bestBidAskWanted == false)
    }

    /// Outside the reader (tests, tools building settings by hand) everything is streamed, as before.
    @Test func handBuiltSettingsStreamEverything() throws {
        let exchange = ExchangeSettings(id: .binance, baseURL: try #require(URL(string: "http://127.0.0.1:1")))
        #expect(exchange.bestBidAskWanted)
    }
}
