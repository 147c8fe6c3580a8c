import Foundation

/// The health of every source (exchange, FX provider, IPO source): answers and failures, the `source/<name>`
/// alerts, silence of exchanges off their stream, and the diary of failures in the log. Owns its slice of
/// what is restored at start (`source/…` states). One of the engine's machines (`AlertEngine` routes to it).
struct SourceHealthMachine: Sendable {
    /// Health per source name.
    private(set) var health: [String: SourceHealth] = [:]
    /// Log throttles per source (failures are logged as a diary, not per poll).
    private var failureLogs: [String: FailureLogThrottle] = [:]
    /// Enabled exchanges some rule watches (cached: asked on every event).
    private(set) var watched: Set<ExchangeID> = [] {
        didSet { watchedOffStream = Self.offStream(watched, liveStreams) }
    }
    /// Exchanges whose stream is live (REST fills in for the others).
    private(set) var liveStreams: Set<ExchangeID> = [] {
        didSet { watchedOffStream = Self.offStream(watched, liveStreams) }
    }
    /// The watched exchanges whose stream is not live (kept with the two sets above): the ones whose silence
    /// is timed, read after every input without a set lookup.
    private var watchedOffStream: [ExchangeID] = []
    /// Silence counts from here for a source never heard from.
    let startedAt: Date

    init(restored: [String: SourceHealth], watched: Set<ExchangeID>, now: Date) {
        startedAt = now
        for (key, state) in restored where key.hasPrefix("source/") {
            health[String(key.dropFirst("source/".count))] = state.restarted(at: now)
        }
        self.watched = watched
        watchedOffStream = Self.offStream(watched, liveStreams)  // observers do not run in an initializer
    }

    /// A source answered (`error == nil`) or failed: its health and `source/<name>` alert.
    mutating func record(
        _ source: String, error: String?, policy: SourceAlertSettings, makeID: () -> String, now: Date, into out: inout EngineOutput
    ) {
        logOutcome(source, error: error, now: now, into: &out)
        let since = startedAt
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
        if let (action, state) = changed { publish(source, state: state, action: action, policy: policy, makeID: makeID, now: now, into: &out) }
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

    /// An exchange's stream went live (true) or down. A live stream makes the exchange usable even while a
    /// quiet market sends nothing (REST is paused then), so silence is not judged while it is live; when it
    /// goes down, silence counts afresh from that moment. Returns whether the state changed.
    mutating func streamChanged(_ exchange: ExchangeID, live: Bool, now: Date) -> Bool {
        if live { return liveStreams.insert(exchange).inserted }
        guard liveStreams.remove(exchange) != nil else { return false }
        if let state = health[exchange.rawValue] { health[exchange.rawValue] = state.restarted(at: now) }
        return true
    }

    /// Exchanges are fetched on a beat (stream or poll), so silence means something for them; FX fallbacks
    /// and IPO sources are called on demand or hourly and alert on consecutive failures only. Silence counts
    /// from this process's start (or the source's addition), also for a source that never answered.
    mutating func checkSilence(policy: SourceAlertSettings, makeID: () -> String, now: Date, into out: inout EngineOutput) {
        for id in watched.sorted() where !liveStreams.contains(id) {
            let name = id.rawValue
            var state = health[name] ?? SourceHealth(since: startedAt)
            let action = state.check(now: now, policy: policy)
            health[name] = state
            publish(name, state: state, action: action, policy: policy, makeID: makeID, now: now, into: &out)
        }
    }

    /// When the first exchange off its stream falls silent.
    func quietDeadline(policy: SourceAlertSettings) -> Date? {
        // Exchanges with a live stream are not timed (a quiet stream is the stream machine's to notice).
        var earliest: Date?
        for id in watchedOffStream {
            guard let due = (health[id.rawValue] ?? SourceHealth(since: startedAt)).quietDeadline(policy: policy) else { continue }
            if earliest.map({ due < $0 }) ?? true { earliest = due }
        }
        return earliest
    }

    /// A reload: the exchanges the rules now watch.
    mutating func watch(_ exchanges: Set<ExchangeID>) { watched = exchanges }

    /// A reload changed what `exchange` serves: its stream is new, its health counts afresh from `now`.
    mutating func restart(_ exchange: ExchangeID, watchedNow: Bool, now: Date) {
        liveStreams.remove(exchange)
        guard watchedNow else { return }
        health[exchange.rawValue] = (health[exchange.rawValue] ?? SourceHealth(since: now)).restarted(at: now)
    }

    /// A takeover: health becomes the store's, restarted at `now`; sources the store does not know start
    /// afresh.
    mutating func adopt(_ restored: [String: SourceHealth], now: Date) {
        var adopted: [String: SourceHealth] = [:]
        for (key, state) in restored where key.hasPrefix("source/") {
            adopted[String(key.dropFirst("source/".count))] = state.restarted(at: now)
        }
        for name in health.keys where adopted[name] == nil { adopted[name] = SourceHealth(since: now) }
        health = adopted
    }

    private func publish(
        _ name: String, state: SourceHealth, action: SourceHealth.Action, policy: SourceAlertSettings, makeID: () -> String,
        now: Date, into out: inout EngineOutput
    ) {
        guard action != .none else { return }
        out.publication.states.append(StateRecord.encode(state, key: SourceEvents.key(name), kind: "source"))
        if let event = SourceEvents.event(id: makeID(), source: name, health: state, action: action, severity: policy.severity, now: now) {
            out.publication.events.append(event)
        }
    }

    static func offStream(_ watched: Set<ExchangeID>, _ live: Set<ExchangeID>) -> [ExchangeID] {
        watched.filter { !live.contains($0) }.sorted()
    }
}
