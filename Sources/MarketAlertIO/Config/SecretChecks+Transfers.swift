import MarketAlertCore

extension SecretChecks {
    /// `transfers.keys.<exchange>`: a secret that is not set (the exchange's status stays unknown), one too
    /// short to scrub, and a key given to an exchange whose status is public (it is not used).
    static func transferKeyWarnings(_ settings: Settings, secrets: SecretResolver) -> [String] {
        guard let transfers = settings.transfers else { return [] }
        var warnings: [String] = []
        for (exchange, key) in transfers.keys.sorted(by: { $0.key < $1.key }) {
            let path = "transfers.keys.\(exchange.rawValue)"
            if TransferStatusRegistry[exchange]?.access == .publicEndpoint {
                warnings.append("\(path): \(exchange.rawValue) publishes its transfer status publicly; the key is not used")
                continue
            }
            let named = [("access_key_env", key.accessKeyEnv), ("secret_key_env", key.secretKeyEnv)]
                + (key.passphraseEnv.map { [("passphrase_env", $0)] } ?? [])
            for (field, name) in named {
                guard let value = secrets.resolve(name) else {
                    warnings.append(
                        "\(path).\(field): secret \(name) is not set (environment or $CREDENTIALS_DIRECTORY); "
                            + "\(exchange.rawValue)'s transfer status stays unknown")
                    continue
                }
                if let short = SecretScrubber.shortSecretIssue(name: name, value: value, path: "\(path).\(field)") {
                    warnings.append(short.description.replacingOccurrences(of: "warning: ", with: ""))
                }
            }
        }
        return warnings
    }
}
