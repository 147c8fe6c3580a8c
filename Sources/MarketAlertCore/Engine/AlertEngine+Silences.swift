import Foundation

/// The router's silence glue: the decisions are `SilenceMachine`'s; the engine answers what it asks of the
/// alert machines (``FiringAlerts``).
extension AlertEngine {
    /// New silences (after an API change, or at start with the restored firing records).
    mutating func receiveSilences(_ snapshot: SilenceSnapshot, now: Date, into out: inout EngineOutput) {
        withSilenceMachine { machine, engine in machine.receive(snapshot, alerts: engine, into: &out) }
    }

    /// After every input: silence ends that fell due, notifications held back, firing records kept
    /// (`quotesOnly`: the input was quotes; see `SilenceMachine.process`).
    mutating func processSilences(now: Date, quotesOnly: Bool = false, into out: inout EngineOutput) {
        let settled = gate.isSettled
        withSilenceMachine { machine, engine in
            machine.process(now: now, settled: settled, alerts: engine, makeID: engine.makeID, quotesOnly: quotesOnly, into: &out)
        }
    }

    /// Runs the silence machine with the engine readable: the machine is moved out while it runs, so reading
    /// the other machines neither overlaps its mutation nor makes it copy its buffers (this runs per input).
    private mutating func withSilenceMachine(_ body: (inout SilenceMachine, AlertEngine) -> Void) {
        var machine = silencing
        silencing = SilenceMachine()
        body(&machine, self)
        silencing = machine
    }

    /// The next silence end still to handle.
    func silenceEndDeadline(after now: Date) -> Date? { silencing.deadline(after: now) }

    /// Every key firing now, with its record and the silence holding it (for `/api/v1/alerts` and the page).
    package func firingAlerts(now: Date) -> [FiringAlert] { silencing.firingAlerts(now: now, alerts: self) }

    /// The silences the engine holds (for the status page).
    package var silences: [Silence] { silencing.silences }
}

extension AlertEngine: FiringAlerts {
    func firingKeys() -> [String] {
        var keys = premium.firingKeys()
        keys += fx.moveAlerts.filter(\.value.isFiring).map(\.key)
        if usdtKrw.premiumAlert?.isFiring == true { keys.append(TetherPremium.key) }
        keys += health.filter(\.value.firing).map { SourceEvents.key($0.key) }
        keys += dataProblems.map { "source/\($0.rawValue)/data" }
        keys += ipo.flooding.map { "source/\($0)/flood" }
        keys += transfers.firingKeys
        return keys.sorted()
    }

    func firingSubject(_ key: String) -> SilenceMatcher.Subject {
        let parts = SilenceMatcher.Subject.premiumParts(key)
        let kind: AlertKind = key.hasPrefix("premium/") ? .premium : key.hasPrefix("fx/") ? .fx
            : key.hasPrefix("transfer/") ? .transfer : .source
        return SilenceMatcher.Subject(key: key, kind: kind, rule: parts?.rule, asset: parts?.asset, severity: firingSeverity(key))
    }

    /// The severity of a firing key from its state machine.
    private func firingSeverity(_ key: String) -> Severity {
        if let parts = SilenceMatcher.Subject.premiumParts(key), case .firing(let level, _, _)? = premium.state(forKey: key)?.phase,
           let rule = settings.premium.rules.first(where: { $0.name == parts.rule }), rule.levels.indices.contains(level)
        {
            return rule.levels[level].severity
        }
        if key.hasPrefix("fx/") { return FXMoveAlerts.severity }
        if key.hasPrefix("transfer/") { return .warning }
        return settings.sourceAlerts.severity
    }

    func currentFiringEvent(_ key: String, now: Date) -> AlertEvent? {
        if let parts = SilenceMatcher.Subject.premiumParts(key), case .firing(let level, _, _)? = premium.state(forKey: key)?.phase,
           let rule = settings.premium.rules.first(where: { $0.name == parts.rule }), let observation = premium.observation(forKey: key, in: book),
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
        if key == TetherPremium.key { return usdtKrw.currentFiringEvent(context: context(now), usdKrw: fx.selected["KRW"]) }
        return nil
    }

    func firingPhase(_ key: String) -> (since: Date, lastNotified: Date?)? {
        let tether = key == TetherPremium.key ? usdtKrw.premiumAlert : nil
        guard case .firing(_, let began, let notified)? = (premium.state(forKey: key) ?? fx.moveAlerts[key] ?? tether)?.phase else { return nil }
        return (began, notified)
    }

    func hasStoppedFiring(_ key: String) -> Bool {
        if key == TetherPremium.key { return usdtKrw.premiumAlert?.isFiring != true }
        return key.hasPrefix("premium/") ? premium.state(forKey: key)?.isFiring != true
            : key.hasPrefix("fx/") ? fx.moveAlerts[key]?.isFiring != true
            : key.hasPrefix("transfer/") ? transfers.alerts[key]?.firing != true : false
    }
}
