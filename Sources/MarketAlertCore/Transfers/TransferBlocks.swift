import Foundation

/// The directions suspended now, per exchange and asset, as bit flags: what `transfers: require` leaves out
/// (a pair whose low side cannot withdraw or whose high side cannot deposit). Unknown is not suspended.
package struct TransferBlocks: Sendable, Equatable {
    package static let withdraw: UInt8 = 1
    package static let deposit: UInt8 = 2

    private var flags: [ExchangeID: [String: UInt8]] = [:]

    package init() {}

    package mutating func set(_ exchange: ExchangeID, _ asset: String, withdraw: Bool, deposit: Bool) {
        let value = (withdraw ? Self.withdraw : 0) | (deposit ? Self.deposit : 0)
        flags[exchange, default: [:]][asset] = value == 0 ? nil : value
    }

    /// The flags of `asset` on `exchange` (0: nothing suspended).
    package func flags(_ exchange: ExchangeID, _ asset: String) -> UInt8 { flags[exchange]?[asset] ?? 0 }

    package var isEmpty: Bool { flags.values.allSatisfy(\.isEmpty) }
}

extension PremiumPlan {
    /// Per market position (`markets`' index of an entry's exchange, first currency), the flags of the
    /// entry's asset on that exchange for rules with `transfers: require` (empty when nothing is blocked):
    /// compiled when the plan or the blocks change, read by `observe` without a lookup.
    func transferFlags(_ blocks: TransferBlocks) -> [UInt8] {
        guard !blocks.isEmpty else { return [] }
        var result = [UInt8](repeating: 0, count: slots.count)
        var any = false
        for entry in entries {
            let rule = rules[entry.rule]
            guard rule.rule.transfers == .require else { continue }
            let quoteCount = rule.currencies.count
            for (index, exchange) in rule.rule.exchanges.enumerated() {
                let value = blocks.flags(exchange, entry.asset)
                result[entry.marketBase + index * quoteCount] = value
                if value != 0 { any = true }
            }
        }
        return any ? result : []
    }
}
