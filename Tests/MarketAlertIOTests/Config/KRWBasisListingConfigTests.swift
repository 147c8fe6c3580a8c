import Foundation
import MarketAlertCore
import MarketAlertIO
import Testing

/// v3 keys of the kimchi premium on both bases and of `listings:`: read as the example writes them, and every
/// mistake named by its key path.
@Suite struct KRWBasisListingConfigTests {
    let exchanges = """
        exchanges:
          upbit: { poll_interval: 5s }
          bithumb: { poll_interval: 5s }
          binance: { poll_interval: 5s }
          okx: { poll_interval: 5s }
        fx:
          providers: [{ name: dunamu }]

        """

    func rule(_ extra: String) -> String {
        """
        premium:
          rules:
            - name: kimchi
              assets: [BTC]
              exchanges: [upbit, binance]
              quotes: [KRW, USDT]
        \(extra)

        """
    }

    func errors(_ yaml: String) -> [String] {
        do {
            _ = try ConfigLoader.parse(yaml: yaml)
            return []
        } catch {
            return error.issues.filter { $0.severity == .error }.map { "\($0.path): \($0.message)" }
        }
    }

    @Test func theExampleKeysAreRead() throws {
        let yaml = exchanges.replacingOccurrences(of: "  providers: [{ name: dunamu }]\n", with: """
              providers: [{ name: dunamu }]
              alerts:
                - pair: USDT/KRW
                  premium_pct: 3.0
              usdt_krw:
                exchanges: [upbit, bithumb]

            """) + rule("      krw_via: usdt") + """
            listings:
              exchanges: [upbit, bithumb, binance]
              quotes: [KRW, USDT]
              poll_interval: 1m
            """
        let settings = try ConfigLoader.parse(yaml: yaml).settings
        #expect(settings.fx.usdtKrw?.exchanges == [.upbit, .bithumb])
        #expect(settings.fx.tetherAlerts == [TetherPremiumAlertSettings(premiumPct: 3)])
        #expect(settings.fx.alerts.isEmpty)
        #expect(settings.premium.rules.first?.krwVia == .usdt)
        #expect(settings.listings == ListingSettings(exchanges: [.upbit, .bithumb, .binance], quotes: ["KRW", "USDT"], pollInterval: .seconds(60)))
        #expect(settings.watchedPairsByExchange[.bithumb] == [MarketPair(base: "USDT", quote: "KRW")])
        #expect(settings.watchedPairsByExchange[.upbit]?.contains(MarketPair(base: "USDT", quote: "KRW")) == true)
        #expect(settings.neededFXCurrencies.contains("KRW"))
    }

    @Test func aVersionTwoRuleKeepsTheOfficialBasisAndWatchesNoTetherMarket() throws {
        let settings = try ConfigLoader.parse(yaml: exchanges + rule("")).settings
        #expect(settings.premium.rules.first?.krwVia == .usdFx)
        #expect(settings.fx.usdtKrw == nil && settings.listings == nil)
        #expect(settings.watchedPairsByExchange[.upbit] == [MarketPair(base: "BTC", quote: "KRW"), MarketPair(base: "BTC", quote: "USDT")])
    }

    @Test(arguments: [
        ("      krw_via: tether", "premium.rules[0].krw_via: expected one of usd_fx, usdt"),
        ("      krw_via: usdt", "premium.rules[0].krw_via: usdt needs fx.usdt_krw.exchanges"),
    ])
    func krwViaMistakes(extra: String, expected: String) {
        let found = errors(exchanges + rule(extra))
        #expect(found.contains { $0.hasPrefix(expected) }, "\(found)")
    }

    @Test(arguments: [
        ("fx:\n  providers: [{ name: dunamu }]\n  alerts: [{ pair: USDT/KRW, change_pct: 1 }]\n  usdt_krw: { exchanges: [upbit] }\n",
         "fx.alerts[0].change_pct: USDT/KRW takes premium_pct"),
        ("fx:\n  providers: [{ name: dunamu }]\n  alerts: [{ pair: USDT/KRW, premium_pct: -1 }]\n  usdt_krw: { exchanges: [upbit] }\n",
         "fx.alerts[0].premium_pct: must be greater than 0"),
        ("fx:\n  providers: [{ name: dunamu }]\n  alerts: [{ pair: USDT/KRW, premium_pct: 3 }]\n", "fx.alerts: the USDT/KRW premium needs fx.usdt_krw.exchanges"),
        ("fx:\n  usdt_krw: { exchanges: [coinone] }\n", "fx.usdt_krw.exchanges[0]: exchange \"coinone\" is not configured"),
        ("fx:\n  usdt_krw: { exchange: [upbit] }\n", "fx.usdt_krw.exchange: unknown key"),
        ("listings: { exchanges: [mtgox], quotes: [USDT] }\n", "listings.exchanges[0]: exchange \"mtgox\" is not configured under exchanges"),
        ("listings: { exchanges: [htx], quotes: [USDT] }\n", "listings.exchanges[0]: exchange \"htx\" is not configured under exchanges"),
        ("listings: { exchanges: [upbit], quotes: [] }\n", "listings.quotes: must list at least one quote currency"),
        ("listings: { exchanges: [upbit], quotes: [KRW], poll_interval: 1s }\n", "listings.poll_interval: must be at least 10s"),
        ("listings: { exchanges: [upbit], quotes: [KRW], every: 1m }\n", "listings.every: unknown key"),
        ("listings: { quotes: [KRW] }\n", "listings.exchanges: required key is missing"),
    ])
    func mistakesNameTheirKeyPath(yaml: String, expected: String) {
        let base = "exchanges:\n  upbit: { poll_interval: 5s }\n  okx: { poll_interval: 5s }\n"
        let found = errors(base + yaml)
        #expect(found.contains { $0.hasPrefix(expected) }, "\(found)")
    }
}
