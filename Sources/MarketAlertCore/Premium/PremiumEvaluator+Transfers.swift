import Foundation

/// v3 `transfers: require`: pairs whose cheap side cannot withdraw or whose dear side cannot deposit take
/// no part in a premium. The engine hands the evaluator what is suspended when a transfer report changes
/// it; the flags are compiled per plan position once then, and `observe` reads them by index (nothing is
/// looked up or allocated per quote).
extension PremiumEvaluator {
    /// What is suspended now; returns whether it changed (the rules must then be evaluated again).
    @discardableResult
    package mutating func setTransferBlocks(_ blocks: TransferBlocks) -> Bool {
        guard blocks != transferBlocks else { return false }
        transferBlocks = blocks
        transferFlagsStale = true
        deadlineCache = nil
        return true
    }

    mutating func compileTransferFlags() {
        transferFlags = plan.transferFlags(transferBlocks)
        transferFlagsStale = false
    }
}
