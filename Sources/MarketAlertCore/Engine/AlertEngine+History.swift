import Foundation

/// The router's history glue: the decisions are `HistoryMachine`'s, over the rings the premium machine
/// observes (`premium.history`) and, for the digest, the IPO machine's offerings.
extension AlertEngine {
    /// A reload: the rings reshape, the digest reschedules.
    mutating func reloadHistory(old: Settings, now: Date, into out: inout EngineOutput) {
        history.reload(old: old, new: settings, rings: &premium.history, now: now, into: &out)
    }

    /// The runtime's rebuild of the context rings from the store after a reload changed the resolution.
    mutating func receiveRebuiltHistory(_ rebuilt: PremiumHistory) {
        premium.history.mergeRings(from: rebuilt)
    }

    /// A graceful stop: the slots in progress are written (the next start restores them), with whatever
    /// closed and is not yet published.
    package mutating func stop(now: Date) -> [EngineAction] {
        var out = EngineOutput()
        out.publication.history = HistoryMachine.stop(rings: &premium.history, now: now)
        return out.actions
    }

    func historyDeadline() -> Date? { history.deadline(flushAt: premium.history.flushAt) }

    /// Publishes the closed slots, prunes hourly, and sends the digest when due.
    mutating func advanceHistory(now: Date, into out: inout EngineOutput) {
        history.advance(rings: &premium.history, offerings: ipo.offerings, context: context(now), into: &out)
        ipo.valueDigests(&out.publication.events)
    }

    /// The digest missed while the daemon was down (decided at start or takeover).
    mutating func sendLateDigest(now: Date, into out: inout EngineOutput) {
        history.sendLateDigest(offerings: ipo.offerings, context: context(now), into: &out)
        ipo.valueDigests(&out.publication.events)
    }

    /// A premium notification with its history context, counted in its slot.
    mutating func withHistory(_ event: AlertEvent, key: String, now: Date) -> AlertEvent {
        HistoryMachine.withContext(event, key: key, rings: &premium.history, settings: settings, now: now)
    }
}
