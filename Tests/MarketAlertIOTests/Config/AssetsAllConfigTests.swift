import Foundation
import MarketAlertCore
import MarketAlertIO
import Testing

/// v3 `assets: all` with `min_exchanges`, `exclude_assets` and `min_volume_24h`: read as the example writes
/// them, every mistake named by its key path, and a version 2 rule unchanged.
@Suite struct AssetsAllConfigTests {
    let head = """
        exchanges:
          upbit: { poll_interval: 5s }
          bithumb: { poll_interval: 5s }
          binance: { poll_interval: 5s }
          okx: { poll_interval: 5s }
        fx:
          providers: [{ name: dunamu }]
        premium:
          rules:
            - name: kimchi-all
              exchanges: [upbit, bithumb, binance]
              quotes: [KRW, USDT]

        """

    func issues(_ keys: String, head: String? = nil) -> (errors: [String], warnings: [String]) {
        do {
            let loaded = try ConfigLoader.parse(yaml: (head ?? self.head) + keys)
            return ([], loaded.warnings.map { "\($0.path): \($0.message)" })
        } catch {
            return (
                error.issues.filter { $0.severity == .error }.map { "\($0.path): \($0.message)" },
                error.issues.filter { $0.severity != .error }.map { "\($0.path): \($0.message)" })
        }
    }

    @Test func theExampleKeysAreRead() throws {
        let yaml = head + """
                  assets: all
                  min_exchanges: 3
                  exclude_assets: [usdt, USDC, DAI]
                  min_volume_24h: 1000000
            """
        let loaded = try ConfigLoader.parse(yaml: yaml)
        let rule = try #require(loaded.settings.premium.rules.first)
        #expect(rule.selection.all && rule.assets.isEmpty)
        #expect(rule.selection.minExchanges == 3)
        #expect(rule.selection.excludeAssets == ["USDT", "USDC", "DAI"])
        #expect(rule.selection.minVolume24h == 1_000_000)
        #expect(loaded.settings.needsAssetUniverse)
        #expect(loaded.settings.universeExchanges == [.upbit, .bithumb, .binance])
        #expect(loaded.warnings.isEmpty)
        // Until the lists are read the rule watches nothing (no pair is polled for it).
        #expect(loaded.settings.watchedPairsByExchange.isEmpty)
    }

    @Test func theDefaultsAreTwoExchangesAndNoFloor() throws {
        let rule = try #require(try ConfigLoader.parse(yaml: head + "      assets: all").settings.premium.rules.first)
        #expect(rule.selection.minExchanges == 2 && rule.selection.excludeAssets.isEmpty && rule.selection.minVolume24h == 0)
    }

    @Test func aFixedListTakesAVolumeFloor() throws {
        let loaded = try ConfigLoader.parse(yaml: head + "      assets: [BTC, ETH]\n      min_volume_24h: 50000")
        let rule = try #require(loaded.settings.premium.rules.first)
        #expect(!rule.selection.all && rule.assets == ["BTC", "ETH"] && rule.selection.minVolume24h == 50_000)
    }

    @Test func aVersionTwoRuleIsUnchanged() throws {
        let settings = try ConfigLoader.parse(yaml: head + "      assets: [BTC]").settings
        #expect(settings.premium.rules.first?.selection == AssetSelection())
        #expect(!settings.needsAssetUniverse)
    }

    @Test(arguments: [
        ("      assets: every", "premium.rules[0].assets: expected a list of assets or all, got \"every\""),
        ("      assets: []", "premium.rules[0].assets: must list at least one asset"),
        ("      assets: all\n      min_exchanges: 1", "premium.rules[0].min_exchanges: must be at least 2 (a premium needs two markets), got 1"),
        ("      assets: all\n      min_exchanges: 4", "premium.rules[0].min_exchanges: 4 can never be met: the rule has 3 exchanges"),
        ("      assets: all\n      min_exchanges: 2.5", "premium.rules[0].min_exchanges: expected a whole number, got \"2.5\""),
        ("      assets: [BTC]\n      min_exchanges: 2", "premium.rules[0].min_exchanges: only assets: all counts exchanges; this rule lists its assets"),
        ("      assets: [BTC]\n      exclude_assets: [USDT]", "premium.rules[0].exclude_assets: only assets: all excludes assets; this rule lists its assets"),
        ("      assets: all\n      min_volume_24h: -1", "premium.rules[0].min_volume_24h: must be a number of at least 0 (reference currency), got -1.0"),
        ("      assets: all\n      min_volume_24h: lots", "premium.rules[0].min_volume_24h: expected a number, got \"lots\""),
    ])
    func mistakes(keys: String, expected: String) {
        let found = issues(keys).errors
        #expect(found == [expected], "\(found)")
    }

    @Test func everyExchangesListIsRead() throws {
        // Every exchange's descriptor names its market list and volumes (the compiler holds it), so an
        // `assets: all` rule over any of them is read without a warning.
        let readable = head.replacingOccurrences(of: "  okx:", with: "  htx:")
        let found = issues("      assets: all", head: readable.replacingOccurrences(of: "[upbit, bithumb, binance]", with: "[upbit, htx]"))
        #expect(found.errors.isEmpty)
        #expect(!found.warnings.contains { $0.contains("cannot be read") }, "\(found.warnings)")
        let loaded = try ConfigLoader.parse(yaml: readable.replacingOccurrences(of: "[upbit, bithumb, binance]", with: "[upbit, htx]") + "      assets: all")
        #expect(loaded.settings.universeExchanges == [.upbit, "htx"])
    }
}
