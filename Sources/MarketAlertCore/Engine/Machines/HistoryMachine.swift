import Foundation

/// Premium history and the daily digest. The context rings and the slots in progress are observed on the
/// quote path by the premium machine (`PremiumEvaluator.history`, passed here as `rings`); this machine
/// decides when closed slots are published (one batch per resolution interval, at the slot end, riding on a
/// publication) and when old samples are pruned (at most hourly), restores the rings at start and at a
/// takeover, gives a premium firing its `premium.context`, and owns the digest: it falls due at `digest.at`
/// in the digest's zone once per local day (the day sent is a state record, so neither a restart nor a
/// reload sends it twice).
///
/// Owns its state (the digest's schedule, day sent and tallies; the last prune) and its slice of what is
/// restored (`Restored.history`, `Restored.digestDay`); `advance` decides, `deadline` says when a slot
/// closes or the digest falls due. One of the engine's machines (`AlertEngine` routes events to it).
struct HistoryMachine: Sendable {
    private(set) var digest = DigestState()
    /// When a publication last asked the store to delete samples older than `history.retention`.
    private(set) var lastPrune: Date?

    /// How often a publication asks the store to prune.
    static let pruneInterval: TimeInterval = 3600

    /// Warms the rings and the digest from the store's samples, and restores the slot in progress, at start
    /// (and at an HA takeover, where the slots this standby observed are kept, merged, and the digest's day
    /// and period become the group's: what the old leader committed).
    init(warmup: HistoryWarmup?, digestDay: String?, rings: inout PremiumHistory, settings: Settings, now: Date) {
        adopt(warmup: warmup, digestDay: digestDay, rings: &rings, settings: settings, now: now)
    }

    /// A takeover: as at start, from what the store holds.
    mutating func adopt(warmup: HistoryWarmup?, digestDay: String?, rings: inout PremiumHistory, settings: Settings, now: Date) {
        if let warmup {
            let observed = rings
            rings = warmup.history
            rings.mergeOpen(from: observed)
            lastPrune = nil  // the store's rings have never asked for a prune
        }
        rings.configure(settings)
        digest = DigestState()
        digest.sentDay = digestDay
        guard let config = settings.digest, let schedule = DigestSchedule(config) else { return }
        digest.schedule = schedule
        digest.due = schedule.next(after: now)
        guard let lastDue = schedule.last(atOrBefore: now) else { return }
        // The period in progress began at the last due time; its samples so far are in the store.
        digest.current = warmup?.current ?? [:]
        // Down at the last due time: send that day's digest late, once, if a digest was sent before (the
        // daemon was running with one) and it is less than 12 hours late.
        let day = schedule.day(of: lastDue)
        if let sent = digest.sentDay, sent < day, now.timeIntervalSince(lastDue) < 12 * 3600 {
            digest.late = (lastDue, warmup?.previous ?? [:])
        }
    }

    /// A reload: new resolution or windows reshape the rings; a changed `digest:` reschedules (the day
    /// already sent stays sent). A new resolution closes the slots in progress at the old one: they are
    /// published here, not lost, and the runtime rebuilds the rings from the store
    /// (``EngineEvent/historyRebuilt(_:)``).
    mutating func reload(old: Settings, new settings: Settings, rings: inout PremiumHistory, now: Date, into out: inout EngineOutput) {
        if old.history != settings.history || old.premium.rules != settings.premium.rules {
            rings.configure(settings)
            publish(rings.flush(now: now), into: &out)
        }
        guard old.digest != settings.digest else { return }
        guard let config = settings.digest, let schedule = DigestSchedule(config) else {
            digest = DigestState(sentDay: digest.sentDay)
            return
        }
        digest.schedule = schedule
        digest.due = schedule.next(after: now)
    }

    /// When `advance` has something to do: the rings' next slot end (`flushAt`) or the digest's due time.
    func deadline(flushAt: Date?) -> Date? {
        guard let flushAt else { return digest.due }
        return digest.due.map { min($0, flushAt) } ?? flushAt
    }

    /// Publishes the closed slots, prunes hourly, and sends the digest when due (`offerings`: the IPO
    /// machine's, for the digest's open windows).
    mutating func advance(
        rings: inout PremiumHistory, offerings: [String: [IPOOffering]], context: MachineContext, into out: inout EngineOutput
    ) {
        let now = context.now
        let samples = rings.flush(now: now)
        publish(samples, into: &out)
        // The prune rides on a sample batch (one transaction), at most hourly.
        if !samples.isEmpty, let retention = context.settings.history?.retention.seconds,
           lastPrune.map({ now.timeIntervalSince($0) >= Self.pruneInterval }) ?? true
        {
            out.publication.pruneHistoryBefore = now.addingTimeInterval(-retention)
            lastPrune = now
        }
        guard let due = digest.due, due <= now, let schedule = digest.schedule else { return }
        let day = schedule.day(of: due)
        if digest.sentDay.map({ $0 < day }) ?? true {
            var tallies = digest.current
            // The open slots that began before the due time belong to this period.
            DigestTally.fold(rings.openSamples().filter { $0.at < due }, into: &tallies)
            sendDigest(day: day, tallies: tallies, offerings: offerings, context: context, late: false, into: &out)
        }
        digest.roll(after: due)
        if let next = digest.due, next <= now { digest.due = schedule.next(after: now) }
    }

    /// The digest missed while the daemon was down (decided at start or takeover), sent once.
    mutating func sendLateDigest(offerings: [String: [IPOOffering]], context: MachineContext, into out: inout EngineOutput) {
        guard let late = digest.late, let schedule = digest.schedule else { return }
        digest.late = nil
        sendDigest(day: schedule.day(of: late.due), tallies: late.tallies, offerings: offerings, context: context, late: true, into: &out)
    }

    /// Closed slots onto the publication, counted in the digest's period.
    private mutating func publish(_ samples: [HistorySample], into out: inout EngineOutput) {
        guard !samples.isEmpty else { return }
        out.publication.history += samples
        digest.add(samples)
    }

    private mutating func sendDigest(
        day: String, tallies: [String: DigestTally], offerings: [String: [IPOOffering]], context: MachineContext, late: Bool,
        into out: inout EngineOutput
    ) {
        guard let config = context.settings.digest else { return }
        let offerings = offerings.keys.sorted().flatMap { offerings[$0] ?? [] }
        out.publication.events.append(
            DigestEvents.event(
                id: context.makeID(), day: day, settings: config, tallies: tallies, offerings: offerings, now: context.now, late: late))
        out.publication.states.append(StateRecord.encode(DigestRecord(day: day), key: DigestRecord.key, kind: DigestRecord.kind))
        digest.sentDay = day
    }
}

extension HistoryMachine {
    /// A premium notification with its history context (firing, escalation, repeat), counted in its slot.
    static func withContext(_ event: AlertEvent, key: String, rings: inout PremiumHistory, settings: Settings, now: Date) -> AlertEvent {
        rings.noteNotification(key)
        guard event.status == AlertEvent.Status.firing, var detail = event.premium,
              let context = rings.context(key, rule: detail.rule, pct: detail.pct, now: now)
        else { return event }
        var event = event
        detail.context = context
        event.premium = detail
        let zone = settings.displayTimeZones.first.flatMap(TimeZone.init(identifier:)) ?? .gmt
        event.summary += "; \(NumberText.pctText(detail.pct))% is \(context.text(timeZone: zone))"
        return event
    }

    /// A graceful stop: the slots in progress are written (the next start restores them), with whatever
    /// closed and is not yet published.
    static func stop(rings: inout PremiumHistory, now: Date) -> [HistorySample] {
        rings.flush(now: now) + rings.persistOpen()
    }
}
