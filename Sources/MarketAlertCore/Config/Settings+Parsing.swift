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

extension PremiumSettings {
    /// Whether a price in `currency` needs an FX rate to become a reference price.
    package func conversionNeedsFX(_ currency: String) -> Bool {
        let fiat = stablecoinsAs[currency] ?? currency
        return fiat != reference
    }

    fileprivate mutating func read(_ table: ConfigTable) {
        if let value = table.string("reference") {
            if value.count == 3, value.allSatisfy({ $0.isASCII && $0.isUppercase }) { reference = value } else {
                table.error("reference", "expected a 3-letter currency code such as USD, got \"\(value)\"")
            }
        }
        if let map = table.table("stablecoins_as") {
            var result: [String: String] = [:]
            for entry in map.allEntries {
                if let target = ConfigValue.string(entry.value, path: map.keyPath(entry.key), map.diagnosticsSink) {
                    result[entry.key] = target
                }
            }
            stablecoinsAs = result
        }
        if let age = table.duration("max_quote_age") {
            if age > .zero { maxQuoteAge = age } else { table.error("max_quote_age", "must be greater than 0") }
        }
        guard let items = table.required("rules", table.list) else { return }
        if items.isEmpty { table.error("rules", "must list at least one rule") }
        var names: Set<String> = []
        for item in items {
            guard let sub = ConfigTable(item.node, path: item.path, diagnostics: table.diagnosticsSink) else { continue }
            if let rule = PremiumRule.read(sub) {
                if !names.insert(rule.name).inserted { sub.error("name", "duplicate rule name \"\(rule.name)\"") }
                rules.append(rule)
            }
            sub.finish()
        }
    }
}

extension PremiumRule {
    fileprivate static func read(_ t: ConfigTable) -> PremiumRule? {
        let name = t.required("name", t.string)
        if let name, name.isEmpty || name.contains("/") { t.error("name", "must be non-empty and contain no \"/\"") }
        let assets = t.required("assets", t.stringList)?.map { $0.uppercased() }
        if assets?.isEmpty == true { t.error("assets", "must list at least one asset") }
        let exchangeNodes = t.required("exchanges", t.list)
        var exchanges: [ExchangeID] = []
        for item in exchangeNodes ?? [] {
            if let id = ConfigValue.string(item.node, path: item.path, t.diagnosticsSink) { exchanges.append(ExchangeID(id)) }
        }
        if let nodes = exchangeNodes, nodes.count < 2 { t.error("exchanges", "a premium needs at least two exchanges") }
        if Set(exchanges).count != exchanges.count { t.error("exchanges", "lists an exchange twice") }
        let quotes = t.required("quotes", t.stringList)?.map { $0.uppercased() }
        if quotes?.isEmpty == true { t.error("quotes", "must list at least one quote currency") }
        let basis = t.oneOf("basis", as: PremiumBasis.self) ?? .last

        var levels = PremiumRule.defaultLevels
        if t.has("levels") && t.has("threshold_pct") {
            t.error("threshold_pct", "give either levels or threshold_pct, not both")
        }
        if let pct = t.number("threshold_pct") {
            levels = [AlertLevel(pct: pct, severity: .warning)]
            if pct <= 0 { t.error("threshold_pct", "must be greater than 0") }
        }
        if let items = t.list("levels") {
            levels = []
            if items.isEmpty { t.error("levels", "must list at least one level") }
            for item in items {
                guard let level = ConfigTable(item.node, path: item.path, diagnostics: t.diagnosticsSink) else { continue }
                let pct = level.required("pct", level.number)
                let severity = level.required("severity") { level.oneOf($0, as: Severity.self) }
                level.finish()
                guard let pct, let severity else { continue }
                if pct <= 0 { level.error("pct", "must be greater than 0") }
                if let previous = levels.last, pct <= previous.pct {
                    level.error("pct", "levels must be in ascending order: \(pct) is not above \(previous.pct)")
                }
                levels.append(AlertLevel(pct: pct, severity: severity))
            }
        }
        let lowest = levels.first?.pct ?? 0
        var clearPct = lowest * 0.8
        if let value = t.number("clear_pct") {
            clearPct = value
            if value < 0 { t.error("clear_pct", "must not be negative") }
            if value >= lowest { t.error("clear_pct", "must be below the lowest level (\(lowest)), got \(value)") }
        }
        let forDuration = t.duration("for") ?? .zero
        let repeatInterval = t.duration("repeat_interval") ?? .zero
        var maxPlausible = PremiumRule.defaultMaxPlausiblePct
        if let value = t.number("max_plausible_pct") {
            maxPlausible = value
            if value <= (levels.last?.pct ?? 0) { t.error("max_plausible_pct", "must be above the highest level (\(levels.last?.pct ?? 0)), got \(value)") }
        }
        guard let name, let assets, let quotes else { return nil }
        var rule = PremiumRule(
            name: name, assets: assets, exchanges: exchanges, quotes: quotes, basis: basis, levels: levels,
            clearPct: clearPct, forDuration: forDuration, repeatInterval: repeatInterval)
        rule.maxPlausiblePct = maxPlausible
        return rule
    }
}

extension FXSettings {
    fileprivate mutating func read(_ t: ConfigTable) {
        if let value = t.duration("poll_interval") {
            if value > .zero { pollInterval = value } else { t.error("poll_interval", "must be greater than 0") }
        }
        if let value = t.duration("max_age") {
            if value > .zero { maxAge = value } else { t.error("max_age", "must be greater than 0") }
        }
        if let value = t.duration("timeout") {
            if value > .zero { timeout = value } else { t.error("timeout", "must be greater than 0") }
        }
        if let value = t.number("max_move_pct") {
            if value > 0 { maxMovePct = value } else { t.error("max_move_pct", "must be greater than 0") }
        }
        for item in t.list("providers") ?? [] {
            guard let sub = ConfigTable(item.node, path: item.path, diagnostics: t.diagnosticsSink) else { continue }
            let kind = sub.required("name") { sub.oneOf($0, as: FXProviderKind.self) }
            let url = sub.url("base_url")
            let appIDEnv = sub.string("app_id_env")
            if let kind, kind != .openexchangerates, appIDEnv != nil {
                sub.error("app_id_env", "only openexchangerates takes an app id")
            }
            if kind == .openexchangerates, appIDEnv == nil {
                sub.error("app_id_env", "openexchangerates needs app_id_env (the secret's name)")
            }
            sub.finish()
            guard let kind else { continue }
            if providers.contains(where: { $0.kind == kind }) { sub.error("name", "provider \(kind.rawValue) listed twice") }
            providers.append(FXProviderSettings(kind: kind, baseURL: url ?? Settings.defaultBaseURL(kind), appIDEnv: appIDEnv))
        }
        for item in t.list("alerts") ?? [] {
            guard let sub = ConfigTable(item.node, path: item.path, diagnostics: t.diagnosticsSink) else { continue }
            let pair = sub.required("pair", sub.string)
            let change = sub.required("change_pct", sub.number)
            sub.finish()
            guard let pair, let change else { continue }
            let parts = pair.split(separator: "/").map(String.init)
            guard parts.count == 2, parts.allSatisfy({ $0.count == 3 }) else {
                sub.error("pair", "expected BASE/QUOTE such as USD/KRW, got \"\(pair)\"")
                continue
            }
            if change <= 0 { sub.error("change_pct", "must be greater than 0") }
            alerts.append(FXAlertSettings(base: parts[0].uppercased(), quote: parts[1].uppercased(), changePct: change))
        }
    }
}

extension IPOSettings {
    fileprivate mutating func read(_ t: ConfigTable) {
        for item in t.list("sources") ?? [] {
            guard let sub = ConfigTable(item.node, path: item.path, diagnostics: t.diagnosticsSink) else { continue }
            let name = sub.required("name", sub.string)
            if let name, name != "twse" { sub.error("name", "expected twse (the only IPO source so far), got \"\(name)\"") }
            var source = IPOSourceSettings(
                name: name ?? "twse", baseURL: sub.url("base_url") ?? URL(string: "https://www.twse.com.tw")!)  // literal
            if let value = sub.duration("poll_interval") {
                if value > .zero { source.pollInterval = value } else { sub.error("poll_interval", "must be greater than 0") }
            }
            if let value = sub.duration("timeout") {
                if value > .zero { source.timeout = value } else { sub.error("timeout", "must be greater than 0") }
            }
            if let zone = sub.string("time_zone") {
                if TimeZone(identifier: zone) != nil { source.timeZone = zone } else { sub.error("time_zone", "unknown time zone \"\(zone)\"") }
            }
            sub.finish()
            sources.append(source)
        }
        if let values = t.oneOfList("notify", as: IPONotification.self) { notify = Set(values) }
        if let patterns = t.stringList("exclude_name_patterns") { excludeNamePatterns = patterns.filter { !$0.isEmpty } }
    }
}

extension SinkSettings {
    fileprivate mutating func read(_ t: ConfigTable) {
        if let stdout = t.table("stdout") {
            if let enabled = stdout.bool("enabled") { stdoutEnabled = enabled }
            if let format = stdout.oneOf("format", as: StdoutFormat.self) { stdoutFormat = format }
            stdout.finish()
        }
        if let journal = t.table("journal") {
            if let enabled = journal.bool("enabled") { journalEnabled = enabled }
            journal.finish()
        }
        var names: Set<String> = []
        for item in t.list("webhooks") ?? [] {
            guard let sub = ConfigTable(item.node, path: item.path, diagnostics: t.diagnosticsSink) else { continue }
            let name = sub.required("name", sub.string) ?? ""
            if !name.isEmpty, !names.insert(name).inserted { sub.error("name", "duplicate webhook name \"\(name)\"") }
            var hook = WebhookSettings(name: name)
            hook.url = sub.url("url")
            hook.urlEnv = sub.string("url_env")
            if sub.has("url") == sub.has("url_env") { sub.error("url", "give exactly one of url or url_env") }
            if let format = sub.oneOf("format", as: WebhookFormat.self) { hook.format = format }
            hook.secretEnv = sub.string("secret_env")
            if let value = sub.duration("timeout") {
                if value > .zero { hook.timeout = value } else { sub.error("timeout", "must be greater than 0") }
            }
            if let value = sub.duration("max_age") {
                if value > .zero { hook.maxAge = value } else { sub.error("max_age", "must be greater than 0") }
            }
            if let kinds = sub.oneOfList("kinds", as: AlertKind.self) {
                if kinds.isEmpty { sub.error("kinds", "must list at least one kind") }
                hook.kinds = Set(kinds)
            }
            hook.chatID = sub.string("chat_id")
            if hook.format == .telegram, hook.chatID == nil { sub.error("chat_id", "format telegram needs chat_id") }
            sub.finish()
            webhooks.append(hook)
        }
    }
}

extension SourceAlertSettings {
    fileprivate mutating func read(_ t: ConfigTable) {
        if let value = t.integer("after_failures") {
            if value >= 1 { afterFailures = value } else { t.error("after_failures", "must be at least 1") }
        }
        if let value = t.duration("after_silence") {
            if value > .zero { afterSilence = value } else { t.error("after_silence", "must be greater than 0") }
        }
        if let value = t.oneOf("severity", as: Severity.self) { severity = value }
    }
}
