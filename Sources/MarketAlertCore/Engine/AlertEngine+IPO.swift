import Foundation

extension AlertEngine {
    /// Runs every current offering of `source` through its subscription state machine at `now`.
    mutating func evaluateIPO(source: String, now: Date, into out: inout EngineOutput) {
        guard let calendar = ipoCalendar(source) else { return }
        let today = calendar.day(of: now)
        let notify = settings.ipo.notify
        let offerings = ipoOfferings[source] ?? []
        var events: [AlertEvent] = []
        for offering in offerings {
            let key = offering.key
            let previous = ipoStates[key]
            var machine: SubscriptionStateMachine
            let notices: [SubscriptionStateMachine.Notice]
            if let previous {
                machine = previous.machine
                notices = machine.observe(offering: offering, today: today, notify: notify)
            } else {
                (machine, notices) = SubscriptionStateMachine.start(offering: offering, today: today, notify: notify)
            }
            let record = IPOAlertState(machine: machine, keepUntil: IPOAlertState.keepUntil(offering, calendar: calendar))
            if record == previous, notices.isEmpty { continue }
            ipoStates[key] = record
            out.publication.states.append(StateRecord.encode(record, key: key, kind: IPOAlertState.kind))
            events += notices.map { IPOEvents.event(id: makeID(), offering: offering, notice: $0, today: today, now: now) }
        }
        capIPONotifications(events, source: source, now: now, into: &out)
        // Offerings that left the list are remembered until `keepUntil`, so a row that comes back is not
        // announced again; then they are forgotten.
        let present = Set(offerings.map(\.key))
        let prefix = "ipo/\(source)/"
        for (key, record) in ipoStates where key.hasPrefix(prefix) && !present.contains(key) && record.keepUntil < now {
            ipoStates[key] = nil
            out.publication.deletedKeys.append(key)
        }
        ipoWake = ipoDeadline(after: now)
    }

    /// At most `ipoNotificationCap` notifications per source and evaluation: a source that suddenly lists
    /// thousands of rows must not flood every channel. The rest are counted in one `source/<name>/flood`
    /// notification (their states are kept, so they are never sent later either); it resolves with the next
    /// ordinary evaluation.
    private mutating func capIPONotifications(_ events: [AlertEvent], source: String, now: Date, into out: inout EngineOutput) {
        let cap = Self.ipoNotificationCap
        out.publication.events += events.prefix(cap)
        let key = "source/\(source)/flood"
        if events.count > cap {
            let summary = "\(source): \(events.count) IPO notifications in one poll; the first \(cap) were sent, "
                + "\(events.count - cap) more are held back (marketalertd once --all lists every offering)"
            out.log(.warning, summary, subject: source)
            ipoFlooding.insert(source)
            out.publication.events.append(AlertEvent(
                id: makeID(), key: key, kind: .source, status: AlertEvent.Status.firing, severity: .warning, at: now,
                summary: summary, source: SourceDetail(name: source, error: summary, lastSuccess: nil, consecutiveFailures: nil)))
        } else if ipoFlooding.remove(source) != nil {
            out.publication.events.append(AlertEvent(
                id: makeID(), key: key, kind: .source, status: AlertEvent.Status.resolved, severity: .info, at: now,
                summary: "\(source): IPO notifications back to normal",
                source: SourceDetail(name: source, error: nil, lastSuccess: nil, consecutiveFailures: nil)))
        }
    }

    package static let ipoNotificationCap = 20

    /// The next local midnight at which some offering's state changes.
    func ipoDeadline(after now: Date) -> Date? {
        var earliest: Date?
        for (source, offerings) in ipoOfferings {
            guard let calendar = ipoCalendar(source) else { continue }
            for offering in offerings {
                guard let boundary = offering.nextBoundary(after: now, in: calendar) else { continue }
                if earliest.map({ boundary < $0 }) ?? true { earliest = boundary }
            }
        }
        return earliest
    }

    /// Every tracked offering with its state at `now` (for `once`, the status line and the status page).
    package func ipoSnapshot(now: Date) -> [IPOOfferingStatus] {
        let rows = ipoOfferings.keys.sorted().flatMap { source -> [IPOOfferingStatus] in
            guard let calendar = ipoCalendar(source) else { return [] }
            return (ipoOfferings[source] ?? []).map { IPOOfferingStatus($0, state: $0.state(at: now, calendar: calendar)) }
        }
        return rows.sorted { lhs, rhs in
            switch (lhs.subscriptionStart, rhs.subscriptionStart) {
            case let (l?, r?) where l != r: l < r
            case (nil, _?): false
            case (_?, nil): true
            default: (lhs.source, lhs.code) < (rhs.source, rhs.code)
            }
        }
    }

    func ipoCalendar(_ source: String) -> MarketCalendar? { ipoCalendars[source] }

    /// Each IPO source's calendar (the config reader has already rejected unknown zones).
    static func calendars(_ settings: IPOSettings) -> [String: MarketCalendar] {
        var result: [String: MarketCalendar] = [:]
        for source in settings.sources { result[source.name] = MarketCalendar(timeZoneIdentifier: source.timeZone) }
        return result
    }
}
