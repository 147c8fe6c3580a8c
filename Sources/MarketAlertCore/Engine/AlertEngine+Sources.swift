import Foundation

/// The router's source glue: health lives in `SourceHealthMachine`; what a failure or a stream change means
/// for the settle gate and the premium rules is decided here.
extension AlertEngine {
    /// A source answered (`error == nil`) or failed: its health and `source/<name>` alert.
    mutating func recordSource(_ source: String, error: String?, now: Date, into out: inout EngineOutput) {
        sources.record(source, error: error, policy: settings.sourceAlerts, makeID: makeID, now: now, into: &out)
    }

    /// A fetch failed. An exchange's first failure declares it down for the settle gate, so its rules go on
    /// without it instead of waiting forever.
    mutating func sourceFailed(_ source: String, message: String, now: Date, into out: inout EngineOutput) {
        recordSource(source, error: message, now: now, into: &out)
        let exchange = ExchangeID(source)
        guard settings.exchanges[exchange] != nil, gate.answered(source) else { return }
        out.log(.warning, "\(source) is down at its first fetch (\(message)); its rules evaluate without it", subject: source)
        if gate.isSettled { out.log(.info, "every source has answered; evaluating") }
        // USDT/KRW waited for this exchange too: it selects from the others now, and every rule sees that.
        if isUSDTKRWSource(exchange), refreshUSDTKRW(now: now, into: &out) {
            evaluatePremiums(involving: nil, now: now, into: &out)
        } else {
            evaluatePremiums(involving: exchange, now: now, into: &out)
        }
    }

    /// An exchange's stream changed state: degraded (REST fills in) is logged and shown, never an alert.
    mutating func streamChanged(_ exchange: ExchangeID, live: Bool, reason: String?, now: Date, into out: inout EngineOutput) {
        let changed = sources.streamChanged(exchange, live: live, now: now)
        if live {
            if changed { out.log(.info, "\(exchange) stream live", subject: exchange.rawValue) }
            recordSource(exchange.rawValue, error: nil, now: now, into: &out)
        } else if changed {
            out.log(.warning, "\(exchange) stream down (\(reason ?? "closed")); REST polling fills in", subject: exchange.rawValue)
        }
    }

    /// Silence of the exchanges off their stream, at `now`.
    mutating func checkSilence(now: Date, into out: inout EngineOutput) {
        sources.checkSilence(policy: settings.sourceAlerts, makeID: makeID, now: now, into: &out)
    }

    func quietSourceDeadline() -> Date? { sources.quietDeadline(policy: settings.sourceAlerts) }

    /// Enabled exchanges some rule watches.
    var watched: Set<ExchangeID> { sources.watched }

    /// Exchanges whose stream is live.
    var liveStreams: Set<ExchangeID> { sources.liveStreams }

    /// Health per source name.
    var health: [String: SourceHealth] { sources.health }
}
