import Foundation

/// v3 `assets: all`: the asset lists change without a restart (the refresh re-applies the settings with the
/// lists resolved, `Settings.resolvingAssets`). An asset that joins is a new market of a changed exchange:
/// `reload` awaits that exchange again, so nothing alerts from a partial view. One that leaves while firing
/// resolves quietly here: one resolved notification saying it is no longer watched, then its state goes.
extension AlertEngine {
    mutating func resolveUnwatched(old: Settings, new: Settings, now: Date, into out: inout EngineOutput) {
        var kept: [String: (rule: PremiumRule, assets: Set<String>)] = [:]
        // An empty list is a rule not resolved yet (nothing read): its states wait (`PremiumEvaluator.retain`).
        for rule in new.premium.rules where rule.selection.all && !rule.assets.isEmpty { kept[rule.name] = (rule, Set(rule.assets)) }
        guard !kept.isEmpty else { return }
        // Every firing key of such a rule, restored ones included (a restart, then a list without the asset).
        for key in premium.firingKeys().sorted() {
            let parts = key.split(separator: "/", maxSplits: 2)
            guard parts.count == 3, parts[0] == "premium", let entry = kept[String(parts[1])] else { continue }
            let asset = String(parts[2])
            guard !entry.assets.contains(asset) else { continue }
            out.publication.events.append(unwatchedEvent(rule: entry.rule, asset: asset, key: key, now: now))
            out.log(.info, "\(asset) left the assets of rule \(entry.rule.name); its firing premium is resolved", subject: key)
        }
    }

    /// The resolved notification of an asset that is no longer watched: the last observation's detail when
    /// there is one, and a summary that says why it resolved.
    private func unwatchedEvent(rule: PremiumRule, asset: String, key: String, now: Date) -> AlertEvent {
        let why = "\(asset) premium (\(rule.name)) resolved: no longer watched (it left the rule's assets: all list)"
        if let observation = premium.observation(forKey: key, in: book),
           var event = PremiumEvents.event(
            id: makeID(), rule: rule, reference: settings.premium.reference, observation: observation, action: .resolve, now: now)
        {
            event.summary = why + "; last \(NumberText.pctText(observation.pct))%"
            return event
        }
        return AlertEvent(id: makeID(), key: key, kind: .premium, status: AlertEvent.Status.resolved, severity: .info, at: now, summary: why)
    }

    /// The assets each `assets: all` rule watches now (`/api/v1/status`, `marketalertd_watched_assets`).
    package var watchedAssetsByRule: [String: [String]] {
        var result: [String: [String]] = [:]
        for rule in settings.premium.rules { result[rule.name] = rule.assets }
        return result
    }

    /// The converter of 24 h volumes into the reference currency for the asset refresh (the current FX
    /// selection).
    package var volumeConverter: CurrencyConverter {
        CurrencyConverter(reference: settings.premium.reference, stablecoinsAs: settings.premium.stablecoinsAs, usdRates: fx.selected)
    }
}

extension AlertEngine {
    /// The rules with `assets: all` and the assets each watches now, in rule order (`/api/v1/status`).
    package var allAssetRules: [(name: String, assets: [String])] {
        settings.premium.rules.filter(\.selection.all).map { ($0.name, $0.assets) }
    }
}
