import Foundation

extension FXMachine {
    /// How long a provider must keep to a jump, on later publications, before its own word is enough.
    static let jumpHold: TimeInterval = 3600

    /// The FX guard: `selection` (fresh rates the failover chose) filtered so a rate that jumps more than
    /// `fx.max_move_pct` from the last accepted one is held: it is accepted at once when another provider's
    /// fresh rate agrees with it, and on its own provider's word only when that provider has kept to it on a
    /// later publication after holding it for `jumpHold` (a provider repeating a bad rate, USD/KRW = 1 a
    /// second later, is not a confirmation). While held, the last accepted rate serves while it is fresh, and
    /// `source/<provider>/data` fires naming the FX provider.
    mutating func guardJumps(
        _ selection: [String: FXRate], context: MachineContext, dataProblems: Set<ExchangeID>, into out: inout EngineOutput
    ) -> [String: FXRate] {
        let now = context.now
        let settings = context.settings
        let limit = settings.fx.maxMovePct / 100
        let book = book
        let failover = failover
        func close(_ a: FXRate, _ b: FXRate) -> Bool { abs(a.rate.value / b.rate.value - 1) <= limit }
        func isFresh(_ rate: FXRate, from provider: String) -> Bool {
            failover?.chain.first { $0.kind.rawValue == provider }?.isFresh(rate, now: now, maxAge: settings.fx.maxAge) ?? false
        }
        func confirmedElsewhere(_ candidate: FXRate, _ currency: String) -> Bool {
            book.states.contains { kind, state in
                guard kind.rawValue != candidate.provider, let other = state.rates[currency] else { return false }
                return isFresh(other, from: kind.rawValue) && close(candidate, other)
            }
        }
        var result: [String: FXRate] = [:]
        for (currency, candidate) in selection.sorted(by: { $0.key < $1.key }) {
            guard let accepted = accepted[currency], !close(candidate, accepted), candidate != accepted else {
                if let held = unconfirmed[currency], candidate.provider != held.provider || confirmedElsewhere(candidate, currency) {
                    setUnconfirmed(nil, currency)
                }
                accept(candidate, currency, context: context, dataProblems: dataProblems, into: &out)
                result[currency] = candidate
                continue
            }
            if confirmedElsewhere(candidate, currency) {
                out.log(.warning, "USD/\(currency) \(candidate.rate) from \(candidate.provider) confirmed by another provider after a jump from \(accepted.rate)")
                setUnconfirmed(nil, currency)
                accept(candidate, currency, context: context, dataProblems: dataProblems, into: &out)
                result[currency] = candidate
                continue
            }
            if let held = suspect[currency], held.provider == candidate.provider, close(candidate, held), let since = suspectSince[currency] {
                if candidate.at > held.at, now.timeIntervalSince(since) >= Self.jumpHold {
                    out.log(
                        .warning,
                        "USD/\(currency) \(candidate.rate) from \(candidate.provider) accepted on its own word after a jump from \(accepted.rate), held since \(Timestamp.rfc3339(since)); no other provider confirms it",
                        subject: candidate.provider)
                    setUnconfirmed(candidate, currency)
                    accept(candidate, currency, context: context, dataProblems: dataProblems, into: &out)
                    result[currency] = candidate
                    continue
                }
            } else {
                let move = NumberText.percent(abs(candidate.rate.value / accepted.rate.value - 1) * 100)
                let summary = "\(candidate.provider) data problem: USD/\(currency) \(candidate.rate) moved \(move)% from \(accepted.rate); "
                    + "held until another provider confirms it (or \(candidate.provider) keeps to it for an hour)"
                out.log(.warning, summary, subject: candidate.provider)
                suspect[currency] = candidate
                suspectSince[currency] = now
                if jumpAlerts[currency] != candidate.provider {
                    resolveJumpAlert(currency, context: context, dataProblems: dataProblems, into: &out)
                    raiseJumpAlert(currency, provider: candidate.provider)
                    out.publication.events.append(DataProblemEvents.event(
                        id: context.makeID(), ExchangeID(candidate.provider), firing: true, summary: summary,
                        error: "USD/\(currency) \(candidate.rate) against \(accepted.rate) accepted before",
                        severity: settings.sourceAlerts.severity, now: now))
                }
            }
            // Meanwhile the last accepted rate serves while it is fresh; after that, none.
            if isFresh(accepted, from: accepted.provider) { result[currency] = accepted }
        }
        return result
    }
}

/// `source/<name>/data`: a source's data is implausible (an exchange's premium beyond what a market can
/// have, or an FX provider's jump held for confirmation).
enum DataProblemEvents {
    static func event(
        id: String, _ source: ExchangeID, firing: Bool, summary: String, error: String?, severity: Severity, now: Date
    ) -> AlertEvent {
        AlertEvent(
            id: id, key: "source/\(source.rawValue)/data", kind: .source,
            status: firing ? AlertEvent.Status.firing : AlertEvent.Status.resolved,
            severity: firing ? severity : .info, at: now, summary: summary,
            source: SourceDetail(name: source.rawValue, error: error, lastSuccess: nil, consecutiveFailures: nil))
    }
}
