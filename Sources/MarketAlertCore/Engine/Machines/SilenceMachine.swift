import Foundation

/// Silences, as Alertmanager has them: an operator's mute. Decides which notifications an active silence
/// holds back (they go into `Publication.silenced`: their states are committed, they reach no sink), keeps a
/// record per firing key, and when a silence ends sends one notification at once for each key it covered
/// that is still firing (a key that resolved meanwhile sends nothing). A silence's end is handled once
/// (persisted by the publisher), only on a settled view, so a restart neither repeats nor skips it.
///
/// Owns its state (`SilenceBook`) and its slice of what is restored at start (the firing records, which come
/// with the first `SilenceSnapshot`); `process` decides after every input, `deadline` says when the next end
/// falls due. What it reads of the other machines (which keys fire, at what level) it asks through
/// ``FiringAlerts``. One of the engine's machines (`AlertEngine` routes events to it).
struct SilenceMachine: Sendable {
    private(set) var book = SilenceBook()

    /// The silences, by creation time then id.
    var silences: [Silence] { book.silences }

    /// New silences (after an API change, or at start with the restored firing records: those of keys not
    /// firing now are deleted).
    mutating func receive(_ snapshot: SilenceSnapshot, alerts: some FiringAlerts, into out: inout EngineOutput) {
        book.replace(snapshot.silences)
        guard let restored = snapshot.restoredFiring else { return }
        let firing = Set(alerts.firingKeys())
        for (key, record) in restored.sorted(by: { $0.key < $1.key }) {
            if firing.contains(key) { book.firing[key] = record } else { out.publication.deletedKeys.append(FiringRecord.storeKey(key)) }
        }
    }

    /// After every input (stream quotes included): handles the silence ends that fell due (only on a settled
    /// view), then holds back what active silences select in `out` and keeps the firing records.
    /// `quotesOnly`: the input was quotes, which stop a key firing only by a notification (its resolution),
    /// so records are pruned only when `out` notifies or deletes something.
    mutating func process(
        now: Date, settled: Bool, alerts: some FiringAlerts, makeID: () -> String, quotesOnly: Bool = false, into out: inout EngineOutput
    ) {
        if settled { handleEnds(now: now, alerts: alerts, makeID: makeID, into: &out) }
        // Records of keys removed by a reload go after this output's events have been matched (a resolution
        // in it is matched with the severity its record holds). Not after every stream quote: each record is
        // a string-keyed lookup, a quarter of a quote's way through the engine with ten keys firing.
        let prune = !quotesOnly || !out.publication.events.isEmpty || !out.publication.deletedKeys.isEmpty
        defer { if prune { pruneRecords(alerts: alerts, into: &out) } }
        guard !out.publication.events.isEmpty else { return }
        var delivered: [AlertEvent] = []
        delivered.reserveCapacity(out.publication.events.count)
        for event in out.publication.events {
            let subject = SilenceMatcher.Subject(event, firingSeverity: book.firing[event.key]?.event.severity)
            let silence = book.silences.isEmpty ? nil : SilenceMatcher.activeSilence(for: subject, in: book.silences, now: now)
            record(event, heldBack: silence != nil, into: &out)
            if let silence {
                out.publication.silenced.append(SilencedEvent(event: event, silenceID: silence.id))
            } else {
                delivered.append(event)
            }
        }
        out.publication.events = delivered
    }

    /// The next silence end still to handle.
    func deadline(after now: Date) -> Date? { book.nextEnd(after: now) }

    private mutating func handleEnds(now: Date, alerts: some FiringAlerts, makeID: () -> String, into out: inout EngineOutput) {
        guard !book.silences.isEmpty else { return }  // asked on every input, stream quotes included
        for silence in book.endsDue(at: now) {
            book.handledEnds.insert(silence.id)
            out.publication.endedSilences.append(silence.id)
            guard silence.everActive else { continue }
            var renotified: [String] = []
            for key in alerts.firingKeys() {
                let subject = subject(key, alerts: alerts)
                guard SilenceMatcher.matches(silence.matchers, subject),
                      SilenceMatcher.activeSilence(for: subject, in: book.silences, now: now) == nil,
                      let event = alerts.currentFiringEvent(key, now: now) ?? recordedEvent(key, now: now, makeID: makeID)
                else { continue }
                out.publication.events.append(event)
                renotified.append(key)
            }
            let what = renotified.isEmpty ? "no key it covered is still firing" : "still firing: \(renotified.joined(separator: ", "))"
            out.log(.info, "silence \(silence.id) ended; \(what)", subject: silence.id)
        }
    }

    /// Keeps the record of a premium, FX or source key: set while firing, removed when resolved.
    private mutating func record(_ event: AlertEvent, heldBack: Bool, into out: inout EngineOutput) {
        guard event.kind != .ipo else { return }
        let storeKey = FiringRecord.storeKey(event.key)
        if event.status == AlertEvent.Status.firing {
            var record = book.firing[event.key] ?? FiringRecord(event: event, since: event.at, lastNotifiedAt: nil)
            record.event = event
            if !heldBack { record.lastNotifiedAt = event.at }
            book.firing[event.key] = record
            out.publication.states.append(StateRecord.encode(record, key: storeKey, kind: FiringRecord.kind))
        } else if book.firing.removeValue(forKey: event.key) != nil {
            out.publication.deletedKeys.append(storeKey)
        }
    }

    /// Records of keys whose state machine is gone (a rule or FX alert removed by a reload).
    private mutating func pruneRecords(alerts: some FiringAlerts, into out: inout EngineOutput) {
        guard !book.firing.isEmpty else { return }
        for key in book.firing.keys where alerts.hasStoppedFiring(key) {
            book.firing[key] = nil
            out.publication.deletedKeys.append(FiringRecord.storeKey(key))
        }
    }

    /// What a silence matches a firing key on: the severity it fired with (its record's, else its machine's).
    func subject(_ key: String, alerts: some FiringAlerts) -> SilenceMatcher.Subject {
        if let record = book.firing[key] { return SilenceMatcher.Subject(record.event) }
        return alerts.firingSubject(key)
    }

    /// The last notification of a key no machine can rebuild, with a new id and time.
    private func recordedEvent(_ key: String, now: Date, makeID: () -> String) -> AlertEvent? {
        guard var event = book.firing[key]?.event else { return nil }
        event.id = makeID()
        event.at = now
        return event
    }

    /// Every key firing now, with its record and the silence holding it (for `/api/v1/alerts` and the page).
    func firingAlerts(now: Date, alerts: some FiringAlerts) -> [FiringAlert] {
        alerts.firingKeys().map { key in
            let record = book.firing[key]
            let subject = subject(key, alerts: alerts)
            var since = record?.since
            var lastNotified = record?.lastNotifiedAt
            if record == nil, let phase = alerts.firingPhase(key) {
                since = phase.since
                lastNotified = phase.lastNotified
            }
            return FiringAlert(
                key: key, kind: subject.kind, severity: subject.severity, since: since, lastNotifiedAt: lastNotified,
                silencedBy: SilenceMatcher.activeSilence(for: subject, in: book.silences, now: now)?.id, event: record?.event)
        }
    }
}
