import Foundation

/// v3 `assets: all`: the asset lists change without a restart (the refresh re-applies the settings with the
/// lists resolved, `Settings.resolvingAssets`). An asset that joins is a new market of a changed exchange:
/// `reload` awaits that exchange again, so nothing alerts from a partial view. One that leaves while firing
/// resolves quietly here: one resolved notification saying it is no longer watched, then its state goes.
extension AlertEngine {
    mutating func resolveUnwatched(old: Settings, new: Settings, now: Date, into out: inout EngineOutput) {
        var kept: [String: PremiumRule] = [:]
        for rule in new.premium.rules where rule.selection.all { kept[rule.name] = rule }
        guard !kept.isEmpty else { return }
        for rule in old.premium.rules where rule.selection.all {
            guard let current = kept[rule.name] else { continue }
            let stays = Set(current.assets)
            for asset in rule.assets where !stays.contains(asset) {
                let key = PremiumEvents.key(rule: rule.name, asset: asset)
                guard premium.state(forKey: key)?.isFiring == true else { continue }
                out.publication.events.append(unwatchedEvent(rule: current, asset: asset, key: key, now: now))
                out.log(.info, "\(asset) left the assets of rule \(rule.name); its firing premium is resolved", subject: key)
            }
        }
    }

    /// The resolved notification of an asset that is no longer watched: the last observation's detail when
    /// there is one, and a summary that says why it resolved.
    private func unwatchedEvent(rule: PremiumRule, asset: String, key: String, now: Date) -> AlertEvent {
        let why = "\(asset) premium (\(rule.name)) resolved: no longer watched (it left the rule's assets: all list)"
        if let observation = premium.observation(forKey: key),
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
