import Foundation
import MarketAlertConfigReader
import MarketAlertCore
import Testing

/// The v3 keys of `basis: depth`: a rule's `notional`, `net_of_fees` and `transfers`; an exchange's
/// `taker_fee_pct` (default: its published fee) and `depth_levels`. A v2 rule is unchanged.
@Suite struct DepthConfigTests {
    @Test func depthRuleKeysAndEachExchangesFeeReachTheRule() throws {
        let yaml = """
            exchanges:
              binance: {}
              upbit: { taker_fee_pct: 0.02, depth_levels: 50 }
            premium:
              rules:
                - name: executable
                  assets: [btc]
                  exchanges: [binance, upbit]
                  quotes: [usdt, krw]
                  basis: depth
                  notional: 25000
                  net_of_fees: false
                  transfers: require
                  levels: [{ pct: 0.3, severity: warning }]
            fx:
              providers: [{ name: dunamu }]
            """
        let settings = try ConfigLoader.parse(yaml: yaml).settings
        let rule = try #require(settings.premium.rules.first)
        #expect(rule.basis == .depth)
        #expect(rule.notional == 25_000)
        #expect(rule.netOfFees == false)
        #expect(rule.transfers == .require)
        #expect(rule.takerFeePct[.binance] == 0.1)  // Binance's published base-tier fee
        #expect(rule.takerFeePct[.upbit] == 0.02)   // the user's own tier
        #expect(settings.exchanges[.upbit]?.depthLevels == 50)
        #expect(settings.exchanges[.binance]?.depthLevels == 20)
    }

    @Test func defaultsOfADepthRule() throws {
        let yaml = "exchanges: { binance: {}, bybit: {} }\npremium:\n  rules:\n    - { name: d, assets: [btc], exchanges: [binance, bybit], quotes: [usdt], basis: depth }\n"
        let rule = try #require(try ConfigLoader.parse(yaml: yaml).settings.premium.rules.first)
        #expect(rule.notional == 10_000)
        #expect(rule.netOfFees)
        #expect(rule.transfers == .ignore)
    }

    @Test func badValuesNameTheirKey() throws {
        let yaml = """
            exchanges:
              binance: { taker_fee_pct: -1, depth_levels: 401 }
              bybit: {}
            premium:
              rules:
                - { name: d, assets: [btc], exchanges: [binance, bybit], quotes: [usdt], basis: depth, notional: 0, transfers: sometimes }
            """
        let error = try #require(throws: ConfigError.self) { try ConfigLoader.parse(yaml: yaml) }
        let text = error.description
        #expect(text.contains("exchanges.binance.taker_fee_pct"))
        #expect(text.contains("exchanges.binance.depth_levels"))
        #expect(text.contains("premium.rules[0].notional"))
        #expect(text.contains("premium.rules[0].transfers"))
    }

    @Test func aNotionalOnALastPriceRuleIsAWarningNotAnError() throws {
        let yaml = "exchanges: { binance: {}, bybit: {} }\npremium:\n  rules:\n    - { name: d, assets: [btc], exchanges: [binance, bybit], quotes: [usdt], notional: 5000 }\n"
        let parsed = try ConfigLoader.parse(yaml: yaml)
        #expect(parsed.warnings.contains { $0.path.hasSuffix("notional") })
        #expect(parsed.settings.premium.rules.first?.basis == .last)
    }
}
