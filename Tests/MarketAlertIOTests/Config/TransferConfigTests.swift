import Foundation
import MarketAlertConfigReader
import MarketAlertCore
import MarketAlertIO
import Testing

/// v3 `transfers:`: poll interval, read-only keys per exchange, notify; what a rule's `transfers` becomes
/// with and without the section; every problem named by its key path. A v2 file is unchanged.
@Suite struct TransferConfigTests {
    static let base = """
        exchanges:
          upbit: {}
          binance: {}
        fx:
          providers: [{ name: dunamu }]
        premium:
          rules:
            - { name: kimchi, assets: [btc], exchanges: [upbit, binance], quotes: [krw, usdt] }
            - { name: plain, assets: [eth], exchanges: [upbit, binance], quotes: [krw, usdt], transfers: ignore }
            - { name: strict, assets: [xrp], exchanges: [upbit, binance], quotes: [krw, usdt], transfers: require }

        """

    @Test func theExampleSectionIsReadAndRulesAnnotateByDefault() throws {
        let yaml = Self.base + """
            transfers:
              poll_interval: 5m
              keys:
                upbit: { access_key_env: UPBIT_ACCESS_KEY, secret_key_env: UPBIT_SECRET_KEY }
              notify: true
            """
        let settings = try ConfigLoader.parse(yaml: yaml).settings
        let transfers = try #require(settings.transfers)
        #expect(transfers.pollInterval == .seconds(300))
        #expect(transfers.notify)
        #expect(transfers.keys[.upbit] == TransferKeySettings(accessKeyEnv: "UPBIT_ACCESS_KEY", secretKeyEnv: "UPBIT_SECRET_KEY"))
        #expect(settings.premium.rules.map(\.transfers) == [.annotate, .ignore, .require])
        // `ignore` takes the rule's assets out of what is polled and notified.
        #expect(settings.watchedTransferAssets == [.upbit: ["BTC", "XRP"], .binance: ["BTC", "XRP"]])
    }

    @Test func withoutTheSectionNothingChanges() throws {
        let parsed = try ConfigLoader.parse(yaml: Self.base)
        #expect(parsed.settings.transfers == nil)
        #expect(parsed.settings.premium.rules.map(\.transfers) == [.ignore, .ignore, .require])
        #expect(parsed.settings.watchedTransferAssets.isEmpty)
        #expect(parsed.warnings.contains { $0.path == "premium.rules[2].transfers" && $0.message.contains("needs the transfers: section") })
    }

    @Test func problemsNameTheirKeyPaths() throws {
        let yaml = Self.base + """
            transfers:
              poll_interval: 1s
              keys:
                mtgox: { access_key_env: A, secret_key_env: B }
                binance: { access_key_env: "BAD/NAME" }
              notify: sometimes
              colour: blue
            """
        let error = try #require(throws: ConfigError.self) { try ConfigLoader.parse(yaml: yaml) }
        let text = error.description
        #expect(text.contains("transfers.keys.mtgox: unknown exchange"))
        #expect(text.contains("transfers.keys.binance.secret_key_env: required key is missing"))
        #expect(text.contains("transfers.keys.binance.access_key_env: expected the name of an environment variable"))
        #expect(text.contains("transfers.notify: expected true or false"))
        #expect(text.contains("transfers.colour: unknown key"))
        #expect(text.contains("transfers.poll_interval: must be at least 10s"))
    }

    /// OKX keys have a passphrase: without `passphrase_env` the key is an error naming it; with it, the
    /// three secrets are read, and check-config names each one that is not set.
    @Test func okxKeysNeedTheirPassphrase() throws {
        let okxBase = Self.base.replacingOccurrences(of: "  binance: {}\n", with: "  binance: {}\n  okx: {}\n  bybit: {}\n")
        let missing = okxBase + """
            transfers:
              keys:
                okx: { access_key_env: OKX_KEY, secret_key_env: OKX_SECRET }
                bybit: { access_key_env: BYBIT_KEY, secret_key_env: BYBIT_SECRET }
            """
        let error = try #require(throws: ConfigError.self) { try ConfigLoader.parse(yaml: missing) }
        #expect(error.description.contains("transfers.keys.okx.passphrase_env: required for okx"), "\(error.description)")
        #expect(!error.description.contains("transfers.keys.bybit"), "Bybit's keys have no passphrase")

        let given = missing.replacingOccurrences(of: "secret_key_env: OKX_SECRET }", with: "secret_key_env: OKX_SECRET, passphrase_env: OKX_PASS }")
        let settings = try ConfigLoader.parse(yaml: given).settings
        #expect(settings.transfers?.keys[.okx] == TransferKeySettings(accessKeyEnv: "OKX_KEY", secretKeyEnv: "OKX_SECRET", passphraseEnv: "OKX_PASS"))
        let warnings = SecretChecks.warnings(settings, secrets: SecretResolver(environment: ["OKX_KEY": "k-123456789", "OKX_SECRET": "s-123456789"]))
        #expect(warnings.contains { $0.hasPrefix("transfers.keys.okx.passphrase_env: secret OKX_PASS is not set") }, "\(warnings)")
    }
}
