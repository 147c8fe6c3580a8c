import Foundation

extension AlertEngine {
    /// Awaits what a configuration needs before its rules may evaluate: every enabled exchange a rule watches
    /// (or only those in `only`), and FX when some rule's prices need a rate. Each is given up on after its
    /// own timeout plus a grace second (FX: every provider's timeout in turn); an exchange asked once per
    /// market at a pace (Coinbase) also gets the time its pace takes for the watched markets.
    mutating func awaitSources(_ settings: Settings, now: Date, only: Set<String>?) {
        for (id, pairs) in settings.watchedPairsByExchange where only?.contains(id.rawValue) ?? true {
            let exchange = settings.exchanges[id]
            let timeout = exchange?.timeout ?? .seconds(5)
            let paced = exchange?.restRequestsPerSecond.map { Double(pairs.count) / Double(max(1, $0)) } ?? 0
            gate.await(id.rawValue, until: now.addingTimeInterval(timeout.seconds + paced + 1))
        }
        if needsFX(settings), only?.contains(SettleGate.fx) ?? true {
            let wait = settings.fx.timeout.seconds * Double(max(1, settings.fx.providers.count)) + 1
            gate.await(SettleGate.fx, until: now.addingTimeInterval(wait))
        }
    }

    func needsFX(_ settings: Settings) -> Bool {
        !settings.fx.providers.isEmpty && settings.premium.rules.contains { settings.premium.needsFX($0) }
    }

    /// A reload: sources added or changed are awaited again (their rules hold still until they answer),
    /// removed ones are forgotten, and the state of rules that no longer exist is deleted.
    mutating func reload(_ new: Settings, now: Date, into out: inout EngineOutput) {
        let old = settings
        settings = new
        // Before the changed exchanges' quotes go: the resolved notification quotes the last observation.
        resolveUnwatched(old: old, new: new, now: now, into: &out)
        let oldWatched = old.watchedPairsByExchange
        let newWatched = new.watchedPairsByExchange
        sources.watch(Set(newWatched.keys))
        for id in Set(oldWatched.keys).union(newWatched.keys).sorted() {
            let changed = oldWatched[id] != newWatched[id] || old.exchanges[id] != new.exchanges[id]
            guard changed else { continue }
            book.remove(id)
            sources.restart(id, watchedNow: newWatched[id] != nil, now: now)
            if newWatched[id] != nil {
                awaitSources(new, now: now, only: [id.rawValue])
            } else {
                gate.forget(id.rawValue)
            }
        }
        if old.fx != new.fx || old.neededFXCurrencies != new.neededFXCurrencies {
            // A new FX poller starts from nothing: never convert with the old configuration's rates.
            fx.forgetRates()
            gate.forget(SettleGate.fx)
            awaitSources(new, now: now, only: [SettleGate.fx])
        }
        if old.ipo != new.ipo {
            ipo.reload(new.ipo)
        }
        out.publication.deletedKeys += premium.retain(settings: new.premium)
        reloadHistory(old: old, now: now, into: &out)
        out.publication.deletedKeys += fx.retainMoveAlerts(new.fx.alerts)
        reloadUSDTKRW(old: old, into: &out)
        retainTransfers(new, into: &out)
        let waiting = awaitedSources
        out.log(.info, "configuration applied" + (waiting.isEmpty ? "" : "; waiting for \(waiting.joined(separator: ", "))"))
        evaluatePremiums(involving: nil, now: now, into: &out)
    }

    /// The name shown for an awaited source: FX as its first provider (`dunamu`).
    func displayName(_ awaited: String) -> String {
        guard awaited == SettleGate.fx else { return awaited }
        return settings.fx.providers.first?.kind.rawValue ?? "fx"
    }

    /// `waiting for binance, dunamu` until every source answered; then
    /// `ready: 7 exchanges ok, 1 failing (bithumb); max premium BTC 0.07%; 2 IPO windows open`.
    package func statusLine(now: Date) -> String {
        guard gate.isSettled else { return "waiting for \(awaitedSources.joined(separator: ", "))" }
        let exchanges = watched.sorted()
        let failing = exchanges.filter { (health[$0.rawValue]?.consecutiveFailures ?? 0) > 0 || health[$0.rawValue]?.firing == true }
        var exchangePart = "\(exchanges.count - failing.count) exchanges ok"
        if !failing.isEmpty { exchangePart += ", \(failing.count) failing (\(failing.map(\.rawValue).joined(separator: ", ")))" }
        let degraded = exchanges.filter { settings.exchanges[$0]?.streamURL != nil && settings.exchanges[$0]?.streamEnabled == true && !liveStreams.contains($0) }
        if !degraded.isEmpty && !liveStreams.isEmpty { exchangePart += ", \(degraded.count) on REST (\(degraded.map(\.rawValue).joined(separator: ", ")))" }
        var parts = ["ready: " + exchangePart]
        if let top = premium.highestPremium(in: book) {
            parts.append("max premium \(top.asset) \(NumberText.percent(top.pct))%")
        } else if !settings.premium.rules.isEmpty {
            parts.append("no premium yet")
        }
        if !settings.ipo.sources.isEmpty {
            parts.append("\(ipoSnapshot(now: now).filter(\.isOpen).count) IPO windows open")
        }
        return parts.joined(separator: "; ")
    }

    /// Emits the status line when the settle state changed (or at start); the shell refreshes it otherwise, at
    /// most once a second (`EngineLoop`), so a streaming market does not rebuild it on every quote.
    mutating func updateStatus(now: Date, into out: inout EngineOutput, force: Bool = false) {
        guard force || gate.isSettled != lastStatusSettled else { return }
        lastStatusSettled = gate.isSettled
        let line = statusLine(now: now)
        guard line != lastStatus else { return }
        lastStatus = line
        out.other.append(.status(line))
    }
}

extension AlertEngine {
    /// Latest premium per rule and asset (nil: fewer than two fresh prices, or not yet evaluated).
    package func premiumTable() -> [(rule: String, asset: String, observation: PremiumObservation?)] {
        settings.premium.rules.flatMap { rule in
            rule.assets.map { asset in (rule.name, asset, premium.observation(forKey: PremiumEvents.key(rule: rule.name, asset: asset), in: book)) }
        }
    }

    /// Health of every source heard from.
    package var sourceHealth: [String: SourceHealth] { health }
}
