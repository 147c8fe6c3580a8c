import Foundation

extension TransferSettings {
    /// Reads `transfers:` (`poll_interval`, `keys.<exchange>`, `notify`); every problem names its key path.
    static func read(_ table: ConfigTable, catalog: ExchangeCatalog) -> TransferSettings {
        var settings = TransferSettings()
        if let interval = table.duration("poll_interval") {
            if interval > .zero { settings.pollInterval = interval } else { table.error("poll_interval", "must be greater than 0") }
        }
        if let notify = table.bool("notify") { settings.notify = notify }
        if let keys = table.table("keys") {
            for entry in keys.allEntries {
                let path = keys.keyPath(entry.key)
                guard let known = catalog[ExchangeID(entry.key)] else {
                    let names = catalog.ids.map(\.rawValue).joined(separator: ", ")
                    keys.diagnosticsSink.error(path, "unknown exchange (known: \(names))", at: entry.keyMark)
                    continue
                }
                guard let sub = ConfigTable(entry.value, path: path, diagnostics: keys.diagnosticsSink) else { continue }
                if let key = TransferKeySettings.read(sub) {
                    if TransferKeySettings.passphraseExchanges.contains(known.id), key.passphraseEnv == nil {
                        sub.error("passphrase_env", "required for \(known.id.rawValue): its API keys have a passphrase")
                    } else {
                        settings.keys[known.id] = key
                    }
                }
                sub.finish()
            }
        }
        return settings
    }
}

extension TransferKeySettings {
    static func read(_ table: ConfigTable) -> TransferKeySettings? {
        let access = table.required("access_key_env", table.string)
        let secret = table.required("secret_key_env", table.string)
        let passphrase = table.string("passphrase_env")
        var valid = true
        for (key, name) in [("access_key_env", access), ("secret_key_env", secret), ("passphrase_env", passphrase)] {
            guard let name else { continue }
            if name.isEmpty || name.contains("/") || name.contains("=") {
                table.error(key, "expected the name of an environment variable or credential, got \"\(name)\"")
                valid = false
            }
        }
        guard valid, let access, let secret else { return nil }
        return TransferKeySettings(accessKeyEnv: access, secretKeyEnv: secret, passphraseEnv: passphrase)
    }
}

extension Settings {
    /// `transfers:` and what it means for the rules: a rule that does not say `transfers` annotates when the
    /// section is there (and ignores without it, as in version 2); a rule that asks for transfer status
    /// without the section is told it has none. A poll interval below the minimum is an error unless every
    /// exchange it polls is on loopback (a test server).
    mutating func readTransfers(_ root: ConfigTable, catalog: ExchangeCatalog) {
        if let table = root.table("transfers") {
            transfers = TransferSettings.read(table, catalog: catalog)
            table.finish()
        }
        for index in premium.rules.indices {
            let path = "premium.rules[\(index)].transfers"
            switch (premium.rules[index].transfersGiven, transfers != nil) {
            case (nil, true): premium.rules[index].transfers = .annotate
            case (nil, false): premium.rules[index].transfers = .ignore
            case (let mode?, false) where mode != .ignore:
                root.diagnosticsSink.warning(path, "\(mode.rawValue) needs the transfers: section; without it every status is unknown")
                premium.rules[index].transfers = mode
            case (let mode?, _): premium.rules[index].transfers = mode
            }
        }
        guard let transfers, transfers.pollInterval < TransferSettings.minimumPollInterval else { return }
        let loopback = watchedTransferAssets.keys.allSatisfy { exchanges[$0]?.baseURL.isLoopback == true }
        if !loopback {
            root.diagnosticsSink.error(
                "transfers.poll_interval",
                "must be at least \(DurationText.format(TransferSettings.minimumPollInterval)) (the exchanges' status endpoints are rate limited)",
                at: nil)
        }
    }
}
