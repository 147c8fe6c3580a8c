import Foundation

extension PremiumSettings {
    /// Whether a price in `currency` needs an FX rate to become a reference price.
    package func conversionNeedsFX(_ currency: String) -> Bool {
        let fiat = stablecoinsAs[currency] ?? currency
        return fiat != reference
    }

    mutating func read(_ table: ConfigTable) {
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
    static func read(_ t: ConfigTable) -> PremiumRule? {
        let name = t.required("name", t.string)
        if let name, name.isEmpty || name.contains("/") { t.error("name", "must be non-empty and contain no \"/\"") }
        var selection = AssetSelection()
        let assets = AssetSelection.read(t, selection: &selection)
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
        let keepFiringFor = t.duration("keep_firing_for") ?? .zero
        var maxPlausible = PremiumRule.defaultMaxPlausiblePct
        if let value = t.number("max_plausible_pct") {
            maxPlausible = value
            if value <= (levels.last?.pct ?? 0) { t.error("max_plausible_pct", "must be above the highest level (\(levels.last?.pct ?? 0)), got \(value)") }
        }
        var notional = PremiumRule.defaultNotional
        if let value = t.number("notional") {
            if value > 0, value.isFinite { notional = value } else { t.error("notional", "must be greater than 0, got \(value)") }
            if basis != .depth { t.warning("notional", "only basis depth trades a notional; this rule's basis is \(basis.rawValue)") }
        }
        let netOfFees = t.bool("net_of_fees") ?? true
        let transfers = t.oneOf("transfers", as: TransferMode.self)
        let krwVia = t.oneOf("krw_via", as: KRWVia.self)
        let contextWindow = t.duration("context_window")
        if let contextWindow, contextWindow < .seconds(1) { t.error("context_window", "must be at least 1s") }
        guard let name, let assets, let quotes else { return nil }
        var rule = PremiumRule(
            name: name, assets: assets, exchanges: exchanges, quotes: quotes, basis: basis, levels: levels,
            clearPct: clearPct, forDuration: forDuration, repeatInterval: repeatInterval)
        rule.maxPlausiblePct = maxPlausible
        rule.keepFiringFor = keepFiringFor
        if let contextWindow, contextWindow >= .seconds(1) { rule.contextWindow = contextWindow }
        rule.notional = notional
        rule.netOfFees = netOfFees
        if let transfers { rule.transfers = transfers }
        rule.transfersGiven = transfers
        if let krwVia { rule.krwVia = krwVia }
        rule.selection = selection
        return rule
    }
}
