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

    package private(set) var awaiting: Set<String> = []

    package init() {}

    package mutating func await(_ names: some Sequence<String>) { awaiting.formUnion(names) }

    /// Records an answer; true when `name` was awaited.
    @discardableResult
    package mutating func answered(_ name: String) -> Bool { awaiting.remove(name) != nil }

    package mutating func forget(_ name: String) { awaiting.remove(name) }

    package var isSettled: Bool { awaiting.isEmpty }

    /// Whether `rule` may evaluate: none of its enabled exchanges, nor FX when it needs it, is awaited.
    package func isSettled(_ rule: PremiumRule, needsFX: Bool) -> Bool {
        if awaiting.isEmpty { return true }
        if needsFX && awaiting.contains(Self.fx) { return false }
        return !rule.exchanges.contains { awaiting.contains($0.rawValue) }
    }
}
