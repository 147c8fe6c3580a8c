import Foundation

/// The router's transfer glue: reports go to `TransferMachine`; a change of what is suspended re-evaluates
/// the premium rules (`transfers: require` leaves pairs out), and premium notifications of rules that look
/// at transfers say whether the coins can move (`premium.transfer`).
extension AlertEngine {
    mutating func receiveTransfers(_ report: TransferReport, now: Date, into out: inout EngineOutput) {
        guard settings.transfers != nil, settings.watchedTransferAssets[report.exchange] != nil else { return }
        let changed = transfers.receive(report, context: context(now), into: &out)
        if changed, premium.setTransferBlocks(transfers.blocks) { evaluatePremiums(involving: nil, now: now, into: &out) }
    }

    /// A reload: alerts of keys no longer watched are forgotten, and what `require` leaves out follows.
    mutating func retainTransfers(_ new: Settings, into out: inout EngineOutput) {
        out.publication.deletedKeys += transfers.retain(new)
        premium.setTransferBlocks(transfers.blocks)
    }

    /// `premium.transfer` for a notification of `rule` (nil when the rule does not look at transfers).
    func transferDetail(rule: PremiumRule, observation: PremiumObservation) -> PremiumTransferDetail? {
        guard settings.transfers != nil, rule.transfers != .ignore else { return nil }
        return PremiumTransferDetail(
            low: transfers.status(observation.low.quote.exchange, observation.asset),
            high: transfers.status(observation.high.quote.exchange, observation.asset))
    }

    /// The status of every asset the rules watch, per exchange (`/api/v1/transfers`, `/metrics`), sorted.
    package func transferTable() -> [AssetTransferStatus] {
        let watched = settings.watchedTransferAssets
        return watched.keys.sorted().flatMap { exchange in
            (watched[exchange] ?? []).sorted().map { transfers.status(exchange, $0) }
        }
    }
}
