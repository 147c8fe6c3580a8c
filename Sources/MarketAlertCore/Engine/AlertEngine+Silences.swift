import Foundation

/// Silences, as Alertmanager has them. The engine decides which notifications a silence holds back (they go
/// into `Publication.silenced`: their states are committed, they reach no sink), keeps a record per firing
/// key, and when a silence ends sends one notification at once for each key it covered that is still
/// firing (a key that resolved meanwhile sends nothing). A silence's end is handled once (persisted by the
/// publisher), only on a settled view, so a restart neither repeats nor skips it.
extension AlertEngine {
    /// New silences (after an API change, or at start with the restored firing records).
    mutating func receiveSilences(_ snapshot: SilenceSnapshot, now: Date, into out: inout EngineOutput) {
        silenceBook.replace(snapshot.silences)
        guard let restored = snapshot.restoredFiring else { return }
        let firing = Set(firingKeys())
        for (key, record) in restored.sorted(by: { $0.key < $1.key }) {
            if firing.contains(key) { silenceBook.firing[key] = record } else { out.publication.deletedKeys.append(FiringRecord.storeKey(key)) }
        }
    }

    /// After every input: handles the silence ends that fell due, then holds back what active silences select
    /// and keeps the firing records.
    mutating func processSilences(now: Date, into out: inout EngineOutput) {
        if gate.isSettled { handleSilenceEnds(now: now, into: &out) }
        // Records of keys removed by a reload go after this output's events have been matched (a resolution
        // in it is matched with the severity its record holds).
        defer { pruneFiringRecords(into: &out) }
        guard !out.publication.events.isEmpty else { return }
        var delivered: [AlertEvent] = []
        delivered.reserveCapacity(out.publication.events.count)
        for event in out.publication.events {
            let subject = SilenceMatcher.Subject(event, firingSeverity: silenceBook.firing[event.key]?.event.severity)
            let silence = silenceBook.silences.isEmpty
                ? nil : SilenceMatcher.activeSilence(for: subject, in: silenceBook.silences, now: now)
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
    func silenceEndDeadline(after now: Date) -> Date? { silenceBook.nextEnd(after: now) }

    private mutating func handleSilenceEnds(now: Date, into out: inout EngineOutput) {
        guard !silenceBook.silences.isEmpty else { return }  // asked on every input, stream quotes included
        for silence in silenceBook.endsDue(at: now) {
            silenceBook.handledEnds.insert(silence.id)
            out.publication.endedSilences.append(silence.id)
            guard silence.everActive else { continue }
            var renotified: [String] = []
            for key in firingKeys() {
                let subject = firingSubject(key)
                guard SilenceMatcher.matches(silence.matchers, subject),
                      SilenceMatcher.activeSilence(for: subject, in: silenceBook.silences, now: now) == nil,
                      let event = currentFiringEvent(key, now: now)
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
            var record = silenceBook.firing[event.key] ?? FiringRecord(event: event, since: event.at, lastNotifiedAt: nil)
            record.event = event
            if !heldBack { record.lastNotifiedAt = event.at }
            silenceBook.firing[event.key] = record
            out.publication.states.append(StateRecord.encode(record, key: storeKey, kind: FiringRecord.kind))
        } else if silenceBook.firing.removeValue(forKey: event.key) != nil {
            out.publication.deletedKeys.append(storeKey)
        }
    }

    /// Records of keys whose state machine is gone (a rule or FX alert removed by a reload).
    private mutating func pruneFiringRecords(into out: inout EngineOutput) {
        guard !silenceBook.firing.isEmpty else { return }
        for key in silenceBook.firing.keys {
            let gone = key.hasPrefix("premium/") ? premium.state(forKey: key)?.isFiring != true
                : key.hasPrefix("fx/") ? fx.moveAlerts[key]?.isFiring != true : false
            guard gone else { continue }
            silenceBook.firing[key] = nil
            out.publication.deletedKeys.append(FiringRecord.storeKey(key))
        }
    }

    /// Every key firing now, sorted.
    func firingKeys() -> [String] {
        var keys = premium.firingKeys()
        keys += fx.moveAlerts.filter(\.value.isFiring).map(\.key)
        keys += health.filter(\.value.firing).map { SourceEvents.key($0.key) }
        keys += dataProblems.map { "source/\($0.rawValue)/data" }
        keys += ipo.flooding.map { "source/\($0)/flood" }
        return keys.sorted()
    }

    /// What a silence matches a firing key on: the severity it fired with.
    func firingSubject(_ key: String) -> SilenceMatcher.Subject {
        if let record = silenceBook.firing[key] { return SilenceMatcher.Subject(record.event) }
        let parts = SilenceMatcher.Subject.premiumParts(key)
        let kind: AlertKind = key.hasPrefix("premium/") ? .premium : key.hasPrefix("fx/") ? .fx : .source
        return SilenceMatcher.Subject(key: key, kind: kind, rule: parts?.rule, asset: parts?.asset, severity: firingSeverity(key))
    }

    /// The severity of a firing key from its state machine (when no record says).
    func firingSeverity(_ key: String) -> Severity {
        if let parts = SilenceMatcher.Subject.premiumParts(key), case .firing(let level, _, _)? = premium.state(forKey: key)?.phase,
           let rule = settings.premium.rules.first(where: { $0.name == parts.rule }), rule.levels.indices.contains(level)
        {
            return rule.levels[level].severity
        }
        if key.hasPrefix("fx/") { return FXMoveAlerts.severity }
        return settings.sourceAlerts.severity
    }

    /// A fresh notification of a key that is still firing, at its current level: rebuilt from the current
    /// premium, FX rate or source health where there is one, else the last notification with a new id and time.
    private func currentFiringEvent(_ key: String, now: Date) -> AlertEvent? {
        if let parts = SilenceMatcher.Subject.premiumParts(key), case .firing(let level, _, _)? = premium.state(forKey: key)?.phase,
           let rule = settings.premium.rules.first(where: { $0.name == parts.rule }), let observation = premium.observation(forKey: key),
           let event = PremiumEvents.event(
            id: makeID(), rule: rule, reference: settings.premium.reference, observation: observation,
            action: .repeatNotification(level: level), now: now)
        {
            return event
        }
        if case .firing(let level, _, _)? = fx.moveAlerts[key]?.phase, let alert = settings.fx.alerts.first(where: { FXMoveAlerts.key($0) == key }),
           let event = FXMoveAlerts.event(id: makeID(), alert: alert, rate: fx.selected[alert.quote], action: .repeatNotification(level: level), now: now)
        {
            return event
        }
        if key.hasPrefix("source/"), let state = health[String(key.dropFirst("source/".count))], state.firing,
           let event = SourceEvents.event(
            id: makeID(), source: String(key.dropFirst("source/".count)), health: state, action: .fire,
            severity: settings.sourceAlerts.severity, now: now)
        {
            return event
        }
        guard var event = silenceBook.firing[key]?.event else { return nil }
        event.id = makeID()
        event.at = now
        return event
    }

    /// Every key firing now, with its record and the silence holding it (for `/api/v1/alerts` and the page).
    package func firingAlerts(now: Date) -> [FiringAlert] {
        firingKeys().map { key in
            let record = silenceBook.firing[key]
            let subject = firingSubject(key)
            var since = record?.since
            var lastNotified = record?.lastNotifiedAt
            if record == nil, case .firing(_, let began, let notified)? = (premium.state(forKey: key) ?? fx.moveAlerts[key])?.phase {
                since = began
                lastNotified = notified
            }
            return FiringAlert(
                key: key, kind: subject.kind, severity: subject.severity, since: since, lastNotifiedAt: lastNotified,
                silencedBy: SilenceMatcher.activeSilence(for: subject, in: silenceBook.silences, now: now)?.id, event: record?.event)
        }
    }

    /// The silences the engine holds (for the status page).
    package var silences: [Silence] { silenceBook.silences }
}
