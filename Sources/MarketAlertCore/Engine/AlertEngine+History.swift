import Foundation

/// Premium history and the daily digest in the engine: closed slots ride on a publication (one batch per
/// resolution interval, at the slot end), old samples are pruned at most hourly, each premium firing carries
/// `premium.context`, and the digest falls due at `digest.at` once per local day (the day sent is a state
/// record, so neither a restart nor a reload sends it twice).
extension AlertEngine {
    /// How often a publication asks the store to delete samples older than `history.retention`.
    static let pruneInterval: TimeInterval = 3600

    /// Warms the context rings and the digest from the store's samples, and restores the slot in progress, at
    /// start (and at an HA takeover, where the slots this standby observed are kept, merged).
    mutating func restoreHistory(_ restored: Restored, now: Date) {
        if let warm = restored.history {
            let observed = premium.history
            premium.history = warm.history
            premium.history.mergeOpen(from: observed)
        }
        premium.history.configure(settings)
        digest = DigestState()
        digest.sentDay = restored.digestDay
        guard let config = settings.digest, let schedule = DigestSchedule(config) else { return }
        digest.schedule = schedule
        digest.due = schedule.next(after: now)
        guard let lastDue = schedule.last(atOrBefore: now) else { return }
        // The period in progress began at the last due time; its samples so far are in the store.
        digest.current = restored.history?.current ?? [:]
        // Down at the last due time: send that day's digest late, once, if a digest was sent before (the
        // daemon was running with one) and it is less than 12 hours late.
        let day = schedule.day(of: lastDue)
        if let sent = digest.sentDay, sent < day, now.timeIntervalSince(lastDue) < 12 * 3600 {
            digest.late = (lastDue, restored.history?.previous ?? [:])
        }
    }

    /// A reload: new resolution or windows reshape the rings; a changed `digest:` reschedules (the day
    /// already sent stays sent).
    /// A new resolution closes the slots in progress at the old one: they are published here, not lost, and
    /// the runtime rebuilds the rings from the store (``EngineEvent/historyRebuilt(_:)``).
    mutating func reloadHistory(old: Settings, now: Date, into out: inout EngineOutput) {
        if old.history != settings.history || old.premium.rules != settings.premium.rules {
            premium.history.configure(settings)
            let samples = premium.history.flush(now: now)
            if !samples.isEmpty {
                out.publication.history += samples
                digest.add(samples)
            }
        }
        guard old.digest != settings.digest else { return }
        guard let config = settings.digest, let schedule = DigestSchedule(config) else {
            digest = DigestState(sentDay: digest.sentDay)
            return
        }
        digest.schedule = schedule
        digest.due = schedule.next(after: now)
    }

    /// The runtime's rebuild of the context rings from the store after a reload changed the resolution.
    mutating func receiveRebuiltHistory(_ rebuilt: PremiumHistory) {
        premium.history.mergeRings(from: rebuilt)
    }

    /// A graceful stop: the slots in progress are written (the next start restores them), with whatever
    /// closed and is not yet published.
    package mutating func stop(now: Date) -> [EngineAction] {
        var out = EngineOutput()
        out.publication.history = premium.history.flush(now: now) + premium.history.persistOpen()
        return out.actions
    }

    func historyDeadline() -> Date? {
        guard let flushAt = premium.history.flushAt else { return digest.due }
        return digest.due.map { min($0, flushAt) } ?? flushAt
    }

    /// Publishes the closed slots, prunes hourly, and sends the digest when due.
    mutating func advanceHistory(now: Date, into out: inout EngineOutput) {
        let samples = premium.history.flush(now: now)
        if !samples.isEmpty {
            out.publication.history += samples
            digest.add(samples)
        }
        // The prune rides on a sample batch (one transaction), at most hourly.
        if !samples.isEmpty, let retention = settings.history?.retention.seconds,
           premium.history.lastPrune.map({ now.timeIntervalSince($0) >= Self.pruneInterval }) ?? true
        {
            out.publication.pruneHistoryBefore = now.addingTimeInterval(-retention)
            premium.history.lastPrune = now
        }
        guard let due = digest.due, due <= now, let schedule = digest.schedule else { return }
        let day = schedule.day(of: due)
        if digest.sentDay.map({ $0 < day }) ?? true {
            var tallies = digest.current
            // The open slots that began before the due time belong to this period.
            DigestTally.fold(premium.history.openSamples().filter { $0.at < due }, into: &tallies)
            sendDigest(day: day, tallies: tallies, now: now, late: false, into: &out)
        }
        digest.roll(after: due)
        if let next = digest.due, next <= now { digest.due = schedule.next(after: now) }
    }

    /// The digest missed while the daemon was down (decided in ``restoreHistory(_:now:)``).
    mutating func sendLateDigest(now: Date, into out: inout EngineOutput) {
        guard let late = digest.late, let schedule = digest.schedule else { return }
        digest.late = nil
        sendDigest(day: schedule.day(of: late.due), tallies: late.tallies, now: now, late: true, into: &out)
    }

    private mutating func sendDigest(day: String, tallies: [String: DigestTally], now: Date, late: Bool, into out: inout EngineOutput) {
        guard let config = settings.digest else { return }
        let offerings = ipo.offerings.keys.sorted().flatMap { ipo.offerings[$0] ?? [] }
        out.publication.events.append(
            DigestEvents.event(id: makeID(), day: day, settings: config, tallies: tallies, offerings: offerings, now: now, late: late))
        out.publication.states.append(StateRecord.encode(DigestRecord(day: day), key: DigestRecord.key, kind: DigestRecord.kind))
        digest.sentDay = day
    }

    /// A premium notification with its history context (firing, escalation, repeat), counted in its slot.
    mutating func withHistory(_ event: AlertEvent, key: String, now: Date) -> AlertEvent {
        premium.history.noteNotification(key)
        guard event.status == AlertEvent.Status.firing, var detail = event.premium,
              let context = premium.history.context(key, rule: detail.rule, pct: detail.pct, now: now)
        else { return event }
        var event = event
        detail.context = context
        event.premium = detail
        let zone = settings.displayTimeZones.first.flatMap(TimeZone.init(identifier:)) ?? .gmt
        event.summary += "; \(NumberText.pctText(detail.pct))% is \(context.text(timeZone: zone))"
        return event
    }
}
