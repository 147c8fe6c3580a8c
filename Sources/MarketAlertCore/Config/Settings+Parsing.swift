import Foundation

extension Settings {
    /// Reads and validates a config tree. Returns the settings plus warnings, or throws `ConfigError` with
    /// every problem found (each naming its key path and, where known, its line).
    ///
    /// ## Configuration keys
    /// - `state_dir` (string, optional): SQLite state directory; default `$STATE_DIRECTORY`, else `./state`.
    /// - `display_time_zones` (list of IANA zones, default `[UTC]`): zones shown in text summaries.
    /// - `exchanges.<id>` (`enabled`, `poll_interval`, `base_url`, `timeout`): omitted exchanges are disabled.
    /// - `fx` (`poll_interval`, `max_age`, `timeout`, `providers[]`, `alerts[]`).
    /// - `premium` (`reference`, `stablecoins_as`, `max_quote_age`, `rules[]`).
    /// - `ipo` (`sources[]`, `notify`, `exclude_name_patterns`).
    /// - `sinks` (`stdout`, `journal`, `webhooks[]`).
    /// - `source_alerts` (`after_failures`, `after_silence`, `severity`): when a failing source raises an alert.
    package static func parse(_ root: ConfigNode, catalog: ExchangeCatalog) throws(ConfigError) -> (settings: Settings, warnings: [ConfigIssue]) {
        let diagnostics = ConfigDiagnostics()
        var settings = Settings()
        if let table = ConfigTable(root, path: "", diagnostics: diagnostics) {
            settings.read(table, catalog: catalog)
            table.finish()
            settings.validateCrossReferences(table)
            settings.validateHistory(table)
            settings.validateKRWBases(table)
            settings.validateRouting(table)
            settings.resolveRuleDerivedSettings()
        }
        if diagnostics.hasErrors { throw ConfigError(issues: diagnostics.issues) }
        return (settings, diagnostics.issues)
    }

    private mutating func read(_ root: ConfigTable, catalog: ExchangeCatalog) {
        stateDirectory = root.string("state_dir")
        if let zones = root.list("display_time_zones") {
            displayTimeZones = zones.compactMap { item in
                guard let id = ConfigValue.string(item.node, path: item.path, root.diagnosticsSink) else { return nil }
                guard TimeZone(identifier: id) != nil else {
                    root.diagnosticsSink.error(item.path, "unknown time zone \"\(id)\"", at: item.node.mark)
                    return nil
                }
                return id
            }
        }
        if let table = root.table("exchanges") { readExchanges(table, catalog: catalog) }
        if let table = root.table("fx") { fx.read(table); table.finish() }
        if let table = root.table("premium") { premium.read(table); table.finish() }
        if let table = root.table("ipo") { ipo.read(table); table.finish() }
        if let table = root.table("sinks") { sinks.read(table); table.finish() }
        if let table = root.table("source_alerts") { sourceAlerts.read(table); table.finish() }
        if let table = root.table("http") { http = HTTPSettings.read(table); table.finish() }
        readHistory(root)
        readTransfers(root, catalog: catalog)
        if let table = root.table("ha") { ha = HASettings.read(table); table.finish() }
        readListings(root)
        routing.read(root)
    }

    private mutating func readExchanges(_ table: ConfigTable, catalog: ExchangeCatalog) {
        for entry in table.allEntries {
            let path = table.keyPath(entry.key)
            guard let known = catalog[ExchangeID(entry.key)] else {
                let names = catalog.ids.map(\.rawValue).joined(separator: ", ")
                table.diagnosticsSink.error(path, "unknown exchange (known: \(names))", at: entry.keyMark)
                continue
            }
            guard let sub = ConfigTable(entry.value, path: path, diagnostics: table.diagnosticsSink) else { continue }
            exchanges[known.id] = ExchangeSettings.read(sub, known: known)
            sub.finish()
        }
    }

    package static func defaultBaseURL(_ kind: FXProviderKind) -> URL {
        let text = switch kind {
        case .dunamu: "https://quotation-api-cdn.dunamu.com"
        case .openexchangerates: "https://openexchangerates.org"
        case .frankfurter: "https://api.frankfurter.app"
        }
        return URL(string: text)!  // constant literal: always parses
    }

    /// Checks that need more than one section: rules name enabled exchanges, fiat quotes have an FX provider.
    private func validateCrossReferences(_ root: ConfigTable) {
        let diagnostics = root.diagnosticsSink
        for (index, rule) in premium.rules.enumerated() {
            let path = "premium.rules[\(index)]"
            for (position, exchange) in rule.exchanges.enumerated() {
                guard let settings = exchanges[exchange] else {
                    diagnostics.error("\(path).exchanges[\(position)]", "exchange \"\(exchange.rawValue)\" is not configured under exchanges", at: nil)
                    continue
                }
                if !settings.enabled {
                    diagnostics.warning("\(path).exchanges[\(position)]", "exchange \"\(exchange.rawValue)\" is disabled; the rule ignores it")
                }
            }
            for quote in rule.quotes where premium.conversionNeedsFX(quote) && fx.providers.isEmpty {
                diagnostics.error("\(path).quotes", "quote currency \(quote) needs an FX rate, but fx.providers is empty", at: nil)
            }
        }
        for issue in FXMoveAlerts.issues(fx.alerts) {
            diagnostics.warning(issue.path, issue.message)
        }
        if premium.conversionNeedsFX(premium.reference) && fx.providers.isEmpty && !premium.rules.isEmpty {
            diagnostics.error("premium.reference", "reference \(premium.reference) needs an FX rate, but fx.providers is empty", at: nil)
        }
    }
}

extension Settings {
    /// Each rule carries its exchanges' taker fees (`taker_fee_pct`, else the exchange's published one), so
    /// evaluation looks nothing up in the exchange settings; the exchanges of depth rules keep books, and
    /// only the exchanges a `mid`/`bidask` rule (or `fx.usdt_krw`) reads stream their best bid/ask apart.
    mutating func resolveRuleDerivedSettings() {
        for exchange in exchanges.keys {
            exchanges[exchange]?.bestBidAskWanted = fx.usdtKrw?.exchanges.contains(exchange) ?? false
        }
        for index in premium.rules.indices {
            if premium.rules[index].basis == .mid || premium.rules[index].basis == .bidask {
                for exchange in premium.rules[index].exchanges { exchanges[exchange]?.bestBidAskWanted = true }
            }
            var fees: [ExchangeID: Double] = [:]
            for exchange in premium.rules[index].exchanges { fees[exchange] = exchanges[exchange]?.takerFeePct }
            premium.rules[index].takerFeePct = fees
            guard premium.rules[index].basis == .depth else { continue }
            for exchange in premium.rules[index].exchanges { exchanges[exchange]?.booksWanted = true }
        }
    }
}
