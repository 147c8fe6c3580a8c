import Foundation

/// Read-only views of the engine for the HTTP API, the status page and `/metrics` (one actor hop each).
extension AlertEngine {
    /// Everything the API and the page show, at `now`.
    package func status(now: Date) -> EngineStatus {
        var status = EngineStatus(
            at: now, statusLine: statusLine(now: now), settled: isSettled, awaiting: awaitedSources, sources: sourceStatuses(),
            fx: fx.selected.values.sorted { $0.pair < $1.pair } + (usdtKrwRate.map { [$0] } ?? []),
            premium: premiumStatuses(now: now), ipo: ipoSnapshot(now: now).filter { $0.isOpen || $0.state == .upcoming },
            alerts: firingAlerts(now: now))
        status.usdtKrwPremiumPct = tetherPremiumPct
        status.listings = listingRecords(since: now.addingTimeInterval(-ListingBook.recentWindow))
        return status
    }

    /// Every enabled source: the watched exchanges, the FX providers (when FX is needed) and the IPO sources.
    package func sourceStatuses() -> [SourceStatus] {
        var names: [(String, SourceStatus.Kind)] = watched.sorted().map { ($0.rawValue, .exchange) }
        let fxNeeded = needsFX(settings) || !settings.fx.alerts.isEmpty
        if fxNeeded { names += settings.fx.providers.map { ($0.kind.rawValue, .fx) } }
        names += settings.ipo.sources.map { ($0.name, .ipo) }
        if settings.ipo.value != nil, !settings.ipo.sources.isEmpty {
            names += MarketPriceSource.allCases.map { ($0.sourceName, .ipo) }
        }
        names += (settings.listings?.exchanges ?? []).map { (ListingSettings.sourceName($0), .listing) }
        let awaiting = gate.awaiting
        return names.map { name, kind in
            let state = health[name]
            let exchange = ExchangeID(name)
            let streamConfigured = kind == .exchange
                && settings.exchanges[exchange]?.streamEnabled == true && settings.exchanges[exchange]?.streamURL != nil
            let connected = kind == .exchange && liveStreams.contains(exchange)
            let awaited = kind == .fx ? awaiting.contains(SettleGate.fx) && settings.fx.providers.first?.kind.rawValue == name : awaiting.contains(name)
            return SourceStatus(
                name: name, kind: kind, up: state.map { $0.lastSuccess != nil && $0.consecutiveFailures == 0 } ?? false,
                transport: connected ? "stream" : "rest", streamConfigured: streamConfigured, streamConnected: connected,
                lastSuccess: state?.lastSuccess, lastError: state?.lastError, consecutiveFailures: state?.consecutiveFailures ?? 0,
                firing: state?.firing ?? false, awaited: awaited, heard: state.map { $0.lastSuccess != nil || $0.lastError != nil } ?? false)
        }
    }

    /// The premium table with each key's alert state.
    package func premiumStatuses(now: Date? = nil) -> [PremiumStatus] {
        premiumKeys { rule, asset, key, level, phase in
            var pending = false
            if case .pending? = phase { pending = true }
            var row = PremiumStatus(
                rule: rule.name, asset: asset, observation: premium.observation(forKey: key, in: book), firingLevel: level,
                firingSeverity: level.map { rule.levels[$0].severity }, levels: rule.levels, pending: pending)
            if let now { row.bases = premium.currentBases(forKey: key, book: book, now: now, maxQuoteAge: settings.premium.maxQuoteAge) }
            row.reference = settings.premium.reference
            row.executable = row.observation?.executable.map { ExecutableDetail($0, reference: settings.premium.reference) }
            return row
        }
    }

    /// One row per premium key (rule × asset, in rule order) from `row`, given the key, its firing level (an
    /// index into the rule's levels) and its phase.
    private func premiumKeys<Row>(
        _ row: (PremiumRule, _ asset: String, _ key: String, _ level: Int?, LeveledAlertStateMachine.Phase?) -> Row
    ) -> [Row] {
        var rows: [Row] = []
        rows.reserveCapacity(settings.premium.rules.reduce(0) { $0 + $1.assets.count })
        for rule in settings.premium.rules {
            for asset in rule.assets {
                let key = PremiumEvents.key(rule: rule.name, asset: asset)
                let phase = premium.state(forKey: key)?.phase
                var level: Int?
                if case .firing(let index, _, _)? = phase { level = min(index, rule.levels.count - 1) }
                rows.append(row(rule, asset, key, level, phase))
            }
        }
        return rows
    }

    /// What the metrics scrape reads of each premium key (`premium_pct`, `executable_pct`, `alert_firing`),
    /// without making its observation (two quotes copied per key).
    package func premiumGauges() -> [PremiumGauge] {
        premiumKeys { rule, asset, key, level, _ in
            let latest = premium.latestGauge(forKey: key)
            return PremiumGauge(rule: rule.name, asset: asset, pct: latest?.pct, executable: latest?.executable ?? false, firingLevel: level)
        }
    }
}

/// One premium key as the metrics scrape reads it.
package struct PremiumGauge: Sendable, Equatable {
    package var rule: String
    package var asset: String
    /// The latest pct (nil while fewer than two fresh prices exist).
    package var pct: Double?
    /// Whether the latest observation is an executable (`basis: depth`) trade.
    package var executable: Bool
    /// Index into the rule's levels while firing (0 = lowest).
    package var firingLevel: Int?
}

extension AlertEngine {
    /// Every tracked offering with its state at `now` (for `once`, the status line and the status page).
    package func ipoSnapshot(now: Date) -> [IPOOfferingStatus] { ipo.snapshot(now: now) }

    /// At most this many IPO notifications per source and evaluation (`IPOMachine`).
    package static var ipoNotificationCap: Int { IPOMachine.notificationCap }
}
