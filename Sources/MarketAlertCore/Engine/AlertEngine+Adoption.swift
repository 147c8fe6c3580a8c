import Foundation

extension AlertEngine {
    /// A takeover in an HA group: the alert state machines become what the previous leader committed (the
    /// store's), while the live view this standby built (quote book, FX, streams, settle gate, IPO offerings)
    /// stays; then every rule is evaluated at once, as on a deadline. Transitions that happened while nobody
    /// led are therefore decided relative to what was last persisted (and notified), and nothing the old
    /// leader committed is decided again. For each state kind this is what a restart does (source health is
    /// watched afresh from `now`), only without waiting for the sources to answer again.
    package mutating func adopt(_ restored: Restored, now: Date) -> [EngineAction] {
        var out = EngineOutput()
        // The history this standby observed stays unless the store's replaces it; the digest's day and
        // period become the group's (what the old leader committed), as at a restart.
        let observed = premium.history
        premium = PremiumEvaluator(states: restored.premium)
        premium.history = observed
        _ = premium.retain(settings: settings.premium)
        history.adopt(warmup: restored.history, digestDay: restored.digestDay, rings: &premium.history, settings: settings, now: now)
        sources.adopt(restored.sources, now: now)
        fx.adopt(restored.fx, alerts: settings.fx.alerts)
        usdtKrw.premiumAlert = restored.fx[TetherPremium.key]
        listings.adopt(restored.listings)
        ipo.adopt(restored.ipo)
        transfers.adopt(restored.transfers)
        premium.setTransferBlocks(transfers.blocks)  // the evaluator was made anew above; what is suspended stays
        transfers.evaluate(context: context(now), into: &out)
        out.log(.notice, "took over: \(restored.premium.count + restored.fx.count + restored.ipo.count + restored.sources.count) alert state(s) adopted from the store; evaluating now")
        reevaluateEverything(now: now, into: &out)
        sendLateDigest(now: now, into: &out)
        processSilences(now: now, into: &out)
        updateStatus(now: now, into: &out)
        return out.actions
    }
}
