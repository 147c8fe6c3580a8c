import Foundation

/// Which sources the engine still waits for before a rule may evaluate.
///
/// A rule evaluates only once every exchange it names has delivered its first quotes or been declared down
/// (its first fetch failed or timed out), and the FX it needs has finished a first round (a rate known or
/// every provider failed). Until then it neither fires nor resolves: a view of two exchanges out of three is
/// not the market. The same holds for every source a reload adds or changes.
package struct SettleGate: Sendable, Equatable {
    /// The name under which the FX side is awaited.
    package static let fx = "fx"

    /// Awaited sources and when each is given up on (declared down without an answer: a producer whose
    /// first fetch hangs must not hold its rules forever).
    package private(set) var deadlines: [String: Date] = [:]

    package var awaiting: Set<String> { Set(deadlines.keys) }

    package init() {}

    package mutating func await(_ name: String, until deadline: Date) { deadlines[name] = deadline }

    /// Records an answer; true when `name` was awaited.
    @discardableResult
    package mutating func answered(_ name: String) -> Bool {
        // Settled: nothing to look up (every stream quote answers).
        guard !deadlines.isEmpty else { return false }
        return deadlines.removeValue(forKey: name) != nil
    }

    package mutating func forget(_ name: String) { deadlines[name] = nil }

    /// Sources whose wait ran out by `now`, removed from the gate.
    package mutating func expire(now: Date) -> [String] {
        let expired = deadlines.filter { $0.value <= now }.map(\.key).sorted()
        for name in expired { deadlines[name] = nil }
        return expired
    }

    package var nextExpiry: Date? { deadlines.values.min() }

    package var isSettled: Bool { deadlines.isEmpty }

    /// Whether `rule` may evaluate: none of its enabled exchanges, nor FX when it needs it, is awaited, nor
    /// (`usdtSources`, for a rule that reports both KRW bases) an exchange USDT/KRW is taken from.
    package func isSettled(_ rule: PremiumRule, needsFX: Bool, usdtSources: [ExchangeID] = []) -> Bool {
        if deadlines.isEmpty { return true }
        if needsFX && deadlines[Self.fx] != nil { return false }
        if rule.comparesKRWWithUSD, usdtSources.contains(where: { deadlines[$0.rawValue] != nil }) { return false }
        return !rule.exchanges.contains { deadlines[$0.rawValue] != nil }
    }
}
