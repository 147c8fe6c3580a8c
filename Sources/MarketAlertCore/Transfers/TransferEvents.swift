import Foundation

/// The persisted state of one `transfer/<exchange>/<asset>` key: whether its alert is firing, and the
/// directions as last notified (so a restart or a takeover decides relative to what was sent).
package struct TransferAlertState: Sendable, Equatable, Codable {
    package var firing: Bool
    package var withdraw: TransferState
    package var deposit: TransferState
    /// When it started firing.
    package var since: Date?

    package static let kind = "transfer"

    package init(firing: Bool, withdraw: TransferState, deposit: TransferState, since: Date?) {
        self.firing = firing
        self.withdraw = withdraw
        self.deposit = deposit
        self.since = since
    }
}

/// Builds kind `transfer` events: firing when an asset stops being withdrawable or depositable on an
/// exchange, resolved when it resumes.
package enum TransferEvents {
    package static func key(_ exchange: ExchangeID, _ asset: String) -> String { "transfer/\(exchange.rawValue)/\(asset)" }

    package static func event(id: String, status: AssetTransferStatus, firing: Bool, now: Date) -> AlertEvent {
        var event = AlertEvent(
            id: id, key: key(status.exchange, status.asset), kind: .transfer,
            status: firing ? AlertEvent.Status.firing : AlertEvent.Status.resolved, severity: firing ? .warning : .info, at: now,
            summary: summary(status, firing: firing))
        event.transfer = status
        return event
    }

    /// `upbit: BTC withdrawals suspended (deposits ok)`, `upbit: BTC withdrawals and deposits resumed`; the
    /// suspended networks are named when some network still works.
    package static func summary(_ status: AssetTransferStatus, firing: Bool) -> String {
        let subject = "\(status.exchange.rawValue): \(status.asset)"
        guard firing else { return "\(subject) withdrawals and deposits resumed (withdraw \(status.withdraw.rawValue), deposit \(status.deposit.rawValue))" }
        let stopped = [("withdrawals", status.withdraw), ("deposits", status.deposit)].filter { $0.1 == .suspended }.map(\.0)
        let other = [("withdrawals", status.withdraw), ("deposits", status.deposit)].filter { $0.1 != .suspended }
        var text = "\(subject) \(stopped.joined(separator: " and ")) suspended"
        if let rest = other.first { text += " (\(rest.0) \(rest.1.rawValue))" }
        let partial = status.networks.filter { $0.withdraw == .suspended || $0.deposit == .suspended }.map(\.network)
        if !partial.isEmpty, partial.count < status.networks.count { text += "; suspended on \(partial.joined(separator: ", "))" }
        if let checked = status.checkedAt { text += ", checked \(Timestamp.rfc3339(checked))" }
        return text
    }
}

extension AlertEvent {
    /// A premium notification of a rule that looks at transfers: `premium.transfer`, and the summary says
    /// it (`; withdraw on binance ok, deposit on upbit suspended`).
    package mutating func annotate(_ transfer: PremiumTransferDetail, low: ExchangeID, high: ExchangeID) {
        premium?.transfer = transfer
        summary += "; withdraw on \(low.rawValue) \(transfer.withdrawLow.rawValue), deposit on \(high.rawValue) \(transfer.depositHigh.rawValue)"
    }
}
