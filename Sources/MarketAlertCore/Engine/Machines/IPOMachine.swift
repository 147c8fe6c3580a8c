import Foundation

/// The IPO subscription windows: each source's current offerings, every offering's subscription state
/// machine, the flood cap, and the next day boundary. Owns its slice of what is restored at start (`ipo`
/// states); `receive`/`evaluate` decide, `deadline` says when a boundary falls due. One of the engine's
/// machines (`AlertEngine` routes events to it).
struct IPOMachine: Sendable {
    private(set) var offerings: [String: [IPOOffering]] = [:]
    private var states: [String: IPOAlertState]
    private var calendars: [String: MarketCalendar]
    /// IPO sources whose last evaluation was capped (`source/<name>/flood` firing).
    private(set) var flooding: Set<String> = []
    /// The next IPO boundary, recomputed whenever offerings are evaluated (deadlines are asked after every
    /// event, so they must be cheap).
    private(set) var deadline: Date?
    /// v3 `ipo.value`: the market prices and what is still awaited (``IPOValuation``).
    private(set) var valuation: IPOValuation

    /// At most this many notifications per source and evaluation.
    static let notificationCap = 20

    /// `now`: when the restored list's next day boundary is looked for.
    init(settings: IPOSettings, restored: [String: IPOAlertState], now: Date) {
        states = restored
        calendars = Self.calendars(settings)
        valuation = IPOValuation(settings: settings.value)
        valuation.restore(restored)
        offerings = Self.lastGoodLists(restored, sources: Set(calendars.keys))
        deadline = nextBoundary(after: now)
    }

    /// Each configured source's last good list, from the stored rows of the offerings it listed (in key
    /// order; a source's next answer replaces it).
    static func lastGoodLists(_ states: [String: IPOAlertState], sources: Set<String>) -> [String: [IPOOffering]] {
        var lists: [String: [IPOOffering]] = [:]
        for key in states.keys.sorted() {
            guard let offering = states[key]?.offering, sources.contains(offering.source), offering.key == key else { continue }
            lists[offering.source, default: []].append(offering)
        }
        return lists
    }

    /// A market-price source's poll: the prices are kept and every offering is evaluated again (a window
    /// held for its price, or below `min_spread_pct`, may be worth a notification now).
    mutating func receivePrices(_ report: MarketPriceReport, context: MachineContext, into out: inout EngineOutput) {
        guard valuation.receive(report) else { return }
        evaluateAll(context: context, into: &out)
    }

    /// A source's new list of offerings, evaluated at once.
    mutating func receive(_ offerings: [IPOOffering], from source: String, context: MachineContext, into out: inout EngineOutput) {
        self.offerings[source] = offerings
        evaluate(source: source, context: context, into: &out)
    }

    /// Every source evaluated at `now` (a deadline, a takeover).
    mutating func evaluateAll(context: MachineContext, into out: inout EngineOutput) {
        for source in offerings.keys.sorted() { evaluate(source: source, context: context, into: &out) }
    }

    /// Runs every current offering of `source` through its subscription state machine at `now`.
    mutating func evaluate(source: String, context: MachineContext, into out: inout EngineOutput) {
        guard let calendar = calendars[source] else { return }
        let now = context.now
        let today = calendar.day(of: now)
        let notify = context.settings.ipo.notify
        let current = offerings[source] ?? []
        var events: [AlertEvent] = []
        for offering in current {
            let key = offering.key
            let previous = states[key]
            var machine: SubscriptionStateMachine
            let notices: [SubscriptionStateMachine.Notice]
            let (value, gate) = valuation.assess(offering)
            if let previous {
                machine = previous.machine
                notices = machine.observe(offering: offering, today: today, notify: notify, gate: gate)
            } else {
                (machine, notices) = SubscriptionStateMachine.start(offering: offering, today: today, notify: notify, gate: gate)
            }
            let record = IPOAlertState(
                machine: machine, keepUntil: IPOAlertState.keepUntil(offering, calendar: calendar), offering: offering,
                price: valuation.price(for: offering))
            if record == previous, notices.isEmpty { continue }
            states[key] = record
            out.publication.states.append(StateRecord.encode(record, key: key, kind: IPOAlertState.kind))
            events += notices.map {
                IPOEvents.event(id: context.makeID(), offering: offering, notice: $0, today: today, now: now, value: value)
            }
        }
        cap(events, source: source, context: context, into: &out)
        // Offerings that left the list are remembered until `keepUntil`, so a row that comes back is not
        // announced again; then they are forgotten.
        let present = Set(current.map(\.key))
        let prefix = "ipo/\(source)/"
        for (key, record) in states where key.hasPrefix(prefix) && !present.contains(key) {
            if record.keepUntil < now {
                states[key] = nil
                out.publication.deletedKeys.append(key)
            } else if record.offering != nil {
                // No longer listed: not part of the last good list a restart goes on with.
                var unlisted = record
                unlisted.offering = nil
                states[key] = unlisted
                out.publication.states.append(StateRecord.encode(unlisted, key: key, kind: IPOAlertState.kind))
            }
        }
        deadline = nextBoundary(after: now)
    }

    /// At most `notificationCap` notifications per source and evaluation: a source that suddenly lists
    /// thousands of rows must not flood every channel. The rest are counted in one `source/<name>/flood`
    /// notification (their states are kept, so they are never sent later either); it resolves with the next
    /// ordinary evaluation.
    private mutating func cap(_ events: [AlertEvent], source: String, context: MachineContext, into out: inout EngineOutput) {
        let cap = Self.notificationCap
        out.publication.events += events.prefix(cap)
        let key = "source/\(source)/flood"
        if events.count > cap {
            let summary = "\(source): \(events.count) IPO notifications in one poll; the first \(cap) were sent, "
                + "\(events.count - cap) more are held back (marketalertd once --all lists every offering)"
            out.log(.warning, summary, subject: source)
            flooding.insert(source)
            out.publication.events.append(AlertEvent(
                id: context.makeID(), key: key, kind: .source, status: AlertEvent.Status.firing, severity: .warning,
                at: context.now, summary: summary,
                source: SourceDetail(name: source, error: summary, lastSuccess: nil, consecutiveFailures: nil)))
        } else if flooding.remove(source) != nil {
            out.publication.events.append(AlertEvent(
                id: context.makeID(), key: key, kind: .source, status: AlertEvent.Status.resolved, severity: .info,
                at: context.now, summary: "\(source): IPO notifications back to normal",
                source: SourceDetail(name: source, error: nil, lastSuccess: nil, consecutiveFailures: nil)))
        }
    }

    /// The next local midnight at which some offering's state changes.
    private func nextBoundary(after now: Date) -> Date? {
        var earliest: Date?
        for (source, offerings) in offerings {
            guard let calendar = calendars[source] else { continue }
            for offering in offerings {
                guard let boundary = offering.nextBoundary(after: now, in: calendar) else { continue }
                if earliest.map({ boundary < $0 }) ?? true { earliest = boundary }
            }
        }
        return earliest
    }

    /// A reload with other IPO settings: removed sources are forgotten, calendars follow the new zones.
    mutating func reload(_ settings: IPOSettings) {
        let names = Set(settings.sources.map(\.name))
        offerings = offerings.filter { names.contains($0.key) }
        calendars = Self.calendars(settings)
        valuation.reload(settings.value)
    }

    /// A takeover: the states become the store's (what the previous leader committed); a source this
    /// instance has no list of yet goes on with the stored one, and a price it has not polled with the stored.
    mutating func adopt(_ restored: [String: IPOAlertState]) {
        states = restored
        valuation.restore(restored)
        for (source, list) in Self.lastGoodLists(restored, sources: Set(calendars.keys)) where offerings[source] == nil {
            offerings[source] = list
        }
    }

    /// Every tracked offering with its state at `now` (for `once`, the status line and the status page).
    func snapshot(now: Date) -> [IPOOfferingStatus] {
        let rows = offerings.keys.sorted().flatMap { source -> [IPOOfferingStatus] in
            guard let calendar = calendars[source] else { return [] }
            return (offerings[source] ?? []).map {
                var row = IPOOfferingStatus($0, state: $0.state(at: now, calendar: calendar))
                row.value = valuation.assess($0).value
                return row
            }
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

    /// v3 `ipo.value`: the digest's open windows (built from the offerings alone) get their value.
    func valueDigests(_ events: inout [AlertEvent]) {
        guard valuation.settings != nil else { return }
        for index in events.indices where events[index].kind == .digest {
            guard var windows = events[index].digest?.ipo else { continue }
            for row in windows.indices {
                let window = windows[row]
                guard let offering = offerings[window.source]?.first(where: {
                    $0.code == window.code && $0.subscriptionStart?.iso == window.subscriptionStart
                }) else { continue }
                windows[row].value = valuation.assess(offering).value
            }
            events[index].digest?.ipo = windows
        }
    }

    /// Each IPO source's calendar (the config reader has already rejected unknown zones).
    static func calendars(_ settings: IPOSettings) -> [String: MarketCalendar] {
        var result: [String: MarketCalendar] = [:]
        for source in settings.sources { result[source.name] = MarketCalendar(timeZoneIdentifier: source.timeZone) }
        return result
    }
}
