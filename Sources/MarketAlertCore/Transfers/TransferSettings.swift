import Foundation

/// v3 `transfers:`: deposit and withdrawal status per exchange and asset, polled every `poll_interval`.
/// Exchanges with a public status endpoint need nothing; the others (Upbit, Binance, OKX, Bybit) publish it
/// only to an API key, given here by the names of its secrets (environment or `$CREDENTIALS_DIRECTORY`).
/// Absent: nothing is polled and every rule's `transfers` is `ignore`, as in version 2.
package struct TransferSettings: Sendable, Equatable {
    package var pollInterval: Duration = .seconds(300)
    /// Read-only API keys per exchange, by secret name.
    package var keys: [ExchangeID: TransferKeySettings] = [:]
    /// Kind `transfer` notifications (the statuses are polled for `annotate` and `require` either way).
    package var notify = true

    /// Exchanges' status endpoints are rate limited and change rarely; a test server on loopback may go lower.
    package static let minimumPollInterval: Duration = .seconds(10)

    package init() {}
}

/// The secrets of one exchange's read-only key: `access_key_env`, `secret_key_env`, and OKX's
/// `passphrase_env`.
package struct TransferKeySettings: Sendable, Equatable {
    package var accessKeyEnv: String
    package var secretKeyEnv: String
    package var passphraseEnv: String?

    /// The exchanges whose keys carry a passphrase (OKX's `OK-ACCESS-PASSPHRASE`): `passphrase_env` is required.
    package static let passphraseExchanges: Set<ExchangeID> = [.okx]

    package init(accessKeyEnv: String, secretKeyEnv: String, passphraseEnv: String? = nil) {
        self.accessKeyEnv = accessKeyEnv
        self.secretKeyEnv = secretKeyEnv
        self.passphraseEnv = passphraseEnv
    }
}

extension Settings {
    /// Per exchange, the assets whose transfer status some rule looks at (its `transfers` is not `ignore`),
    /// on the enabled exchanges it uses. Empty without `transfers:`.
    package var watchedTransferAssets: [ExchangeID: Set<String>] {
        guard transfers != nil else { return [:] }
        var result: [ExchangeID: Set<String>] = [:]
        for rule in premium.rules where rule.transfers != .ignore {
            for exchange in rule.exchanges where exchanges[exchange]?.enabled == true {
                result[exchange, default: []].formUnion(rule.assets)
            }
        }
        return result
    }
}
