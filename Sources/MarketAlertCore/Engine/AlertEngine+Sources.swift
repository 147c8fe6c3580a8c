import Foundation

extension AlertEngine {
    /// A source answered (`error == nil`) or failed: its health and `source/<name>` alert.
    mutating func recordSource(_ source: String, error: String?, now: Date, into out: inout EngineOutput) {
        logOutcome(source, error: error, now: now, into: &out)
        let since = startedAt
        let policy = settings.sourceAlerts
        let quietApplies = error != nil && watched.contains(ExchangeID(source))
        // Updated in place (one lookup): a success is recorded for every stream quote.
        let changed = { (state: inout SourceHealth) -> (SourceHealth.Action, SourceHealth)? in
            let action = if let error {
                state.recordFailure(error, now: now, policy: policy, quietApplies: quietApplies)
            } else {
                state.recordSuccess(now: now)
            }
            return action == .none ? nil : (action, state)
        }(&health[source, default: SourceHealth(since: since)])
        if let (action, state) = changed { publishHealth(source, state: state, action: action, now: now, into: &out) }
    }

    /// The daemon's diary of a source: the first failure, changes of error, a summary at most every ten
    /// minutes while it persists, and the recovery (`FailureLogThrottle`), never a line per failed poll.
    /// The `source/<name>` alert is the notification; this is the log.
    private mutating func logOutcome(_ source: String, error: String?, now: Date, into out: inout EngineOutput) {
        if error == nil, failureLogs[source]?.isFailing != true { return }
        var throttle = failureLogs[source] ?? FailureLogThrottle(source: source)
        let line = if let error { throttle.failure(error, now: now) } else { throttle.success(now: now) }
        failureLogs[source] = throttle
        guard let line else { return }
        out.log(line.level == .warning ? .warning : .notice, line.message, subject: source)
    }

    /// A fetch failed. An exchange's first failure declares it down for the settle gate, so its rules go on
    /// without it instead of waiting forever.
    mutating func sourceFailed(_ source: String, message: String, now: Date, into out: inout EngineOutput) {
        recordSource(source, error: message, now: now, into: &out)
        let exchange = ExchangeID(source)
        guard settings.exchanges[exchange] != nil, gate.answered(source) else { return }
        out.log(.warning, "\(source) is down at its first fetch (\(message)); its rules evaluate without it", subject: source)
        if gate.isSettled { out.log(.info, "every source has answered; evaluating") }
        evaluatePremiums(involving: exchange, now: now, into: &out)
    }

    /// An exchange's stream changed state: degraded (REST fills in) is logged and shown, never an alert.
    /// A live stream makes the exchange usable even while a quiet market sends nothing (REST is paused then),
    /// so silence is not judged while it is live; when it goes down, silence counts afresh from that moment.
    mutating func streamChanged(_ exchange: ExchangeID, live: Bool, reason: String?, now: Date, into out: inout EngineOutput) {
        if live {
            if liveStreams.insert(exchange).inserted { out.log(.info, "\(exchange) stream live", subject: exchange.rawValue) }
            recordSource(exchange.rawValue, error: nil, now: now, into: &out)
        } else if liveStreams.remove(exchange) != nil {
            out.log(.warning, "\(exchange) stream down (\(reason ?? "closed")); REST polling fills in", subject: exchange.rawValue)
            if let state = health[exchange.rawValue] { health[exchange.rawValue] = state.restarted(at: now) }
        }
    }

    /// Exchanges are fetched on a beat (stream or poll), so silence means something for them; FX fallbacks
    /// and IPO sources are called on demand or hourly and alert on consecutive failures only. Silence counts
    /// from this process's start (or the source's addition), also for a source that never answered.
    mutating func checkSilence(now: Date, into out: inout EngineOutput) {
        for id in watched.sorted() where !liveStreams.contains(id) {
            let name = id.rawValue
            var state = health[name] ?? SourceHealth(since: startedAt)
            let action = state.check(now: now, policy: settings.sourceAlerts)
            health[name] = state
            publishHealth(name, state: state, action: action, now: now, into: &out)
        }
    }

    func quietSourceDeadline() -> Date? {
        // Exchanges with a live stream are not timed (a quiet stream is the stream machine's to notice).
        var earliest: Date?
        for id in watchedOffStream {
            guard let due = (health[id.rawValue] ?? SourceHealth(since: startedAt)).quietDeadline(policy: settings.sourceAlerts)
            else { continue }
            if earliest.map({ due < $0 }) ?? true { earliest = due }
        }
        return earliest
    }

    private func publishHealth(_ name: String, state: SourceHealth, action: SourceHealth.Action, now: Date, into out: inout EngineOutput) {
        guard action != .none else { return }
        out.publication.states.append(StateRecord.encode(state, key: SourceEvents.key(name), kind: "source"))
        if let event = SourceEvents.event(
            id: makeID(), source: name, health: state, action: action, severity: settings.sourceAlerts.severity, now: now)
        {
            out.publication.events.append(event)
        }
    }
}
