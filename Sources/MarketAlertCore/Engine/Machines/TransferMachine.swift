import Foundation

/// Deposit and withdrawal status: each exchange's last report, and the `transfer/<exchange>/<asset>` alerts
/// of the assets the rules watch. Owns its slice of what is restored at start (`transfer` states); `receive`
/// and `evaluate` decide. A key fires once when either direction becomes `suspended` and resolves once when
/// neither is suspended and one is `ok` again; `unknown` (no key, not listed, not asked yet) never fires nor
/// resolves. The state is committed with its notification, so a restart or a takeover never repeats one.
struct TransferMachine: Sendable {
    /// The last report's status per exchange and asset.
    private(set) var statuses: [ExchangeID: [String: AssetTransferStatus]] = [:]
    /// The alert state per key.
    private(set) var alerts: [String: TransferAlertState]

    init(restored: [String: TransferAlertState]) {
        alerts = restored
    }

    /// An exchange's new report: the statuses replace the last; returns whether any asset's suspended
    /// directions changed (the premium rules with `transfers: require` must then be evaluated again).
    mutating func receive(_ report: TransferReport, context: MachineContext, into out: inout EngineOutput) -> Bool {
        let before = statuses[report.exchange] ?? [:]
        statuses[report.exchange] = report.statuses
        var blockingChanged = false
        for (asset, status) in report.statuses {
            let old = before[asset]
            if (old?.withdraw == .suspended) != (status.withdraw == .suspended) || (old?.deposit == .suspended) != (status.deposit == .suspended) {
                blockingChanged = true
            }
        }
        for (asset, old) in before where report.statuses[asset] == nil && old.isSuspended { blockingChanged = true }
        evaluate(exchange: report.exchange, context: context, into: &out)
        return blockingChanged
    }

    /// The status of `asset` on `exchange` (unknown when never reported).
    func status(_ exchange: ExchangeID, _ asset: String) -> AssetTransferStatus {
        statuses[exchange]?[asset] ?? .unknown(exchange, asset)
    }

    /// Every watched key (or those of `exchange`) at `now`: fires, resolves, persists.
    mutating func evaluate(exchange only: ExchangeID? = nil, context: MachineContext, into out: inout EngineOutput) {
        guard let settings = context.settings.transfers, settings.notify else { return }
        let watched = context.settings.watchedTransferAssets
        for exchange in watched.keys.sorted() where only == nil || only == exchange {
            for asset in (watched[exchange] ?? []).sorted() {
                step(status(exchange, asset), context: context, into: &out)
            }
        }
    }

    private mutating func step(_ status: AssetTransferStatus, context: MachineContext, into out: inout EngineOutput) {
        let key = TransferEvents.key(status.exchange, status.asset)
        let previous = alerts[key]
        let firing = previous?.firing ?? false
        if !firing, status.isSuspended {
            let state = TransferAlertState(firing: true, withdraw: status.withdraw, deposit: status.deposit, since: context.now)
            alerts[key] = state
            out.publication.states.append(StateRecord.encode(state, key: key, kind: TransferAlertState.kind))
            out.publication.events.append(TransferEvents.event(id: context.makeID(), status: status, firing: true, now: context.now))
        } else if firing, !status.isSuspended, status.withdraw == .ok || status.deposit == .ok {
            alerts[key] = nil
            out.publication.deletedKeys.append(key)
            out.publication.events.append(TransferEvents.event(id: context.makeID(), status: status, firing: false, now: context.now))
        } else if firing, let previous, status.isSuspended, previous.withdraw != status.withdraw || previous.deposit != status.deposit {
            // Still firing with another shape (deposits stopped too): remembered, not notified again.
            let state = TransferAlertState(firing: true, withdraw: status.withdraw, deposit: status.deposit, since: previous.since)
            alerts[key] = state
            out.publication.states.append(StateRecord.encode(state, key: key, kind: TransferAlertState.kind))
        }
    }

    /// A reload: alerts of keys no longer watched (or of a config without transfer notifications) are
    /// forgotten without a notification, as a removed premium rule's; statuses of exchanges no longer
    /// polled are dropped. Returns the deleted keys.
    mutating func retain(_ settings: Settings) -> [String] {
        let watched = settings.transfers?.notify == true ? settings.watchedTransferAssets : [:]
        statuses = statuses.filter { settings.watchedTransferAssets[$0.key] != nil }
        let live = Set(watched.flatMap { exchange, assets in assets.map { TransferEvents.key(exchange, $0) } })
        let gone = alerts.keys.filter { !live.contains($0) }.sorted()
        for key in gone { alerts[key] = nil }
        return gone
    }

    /// A takeover: the alert states become the store's (what the previous leader committed).
    mutating func adopt(_ restored: [String: TransferAlertState]) { alerts = restored }

    /// Keys firing now.
    var firingKeys: [String] { alerts.filter(\.value.firing).map(\.key) }

    /// Per exchange and asset, the directions suspended now (for `transfers: require`).
    var blocks: TransferBlocks {
        var result = TransferBlocks()
        for (exchange, assets) in statuses {
            for (asset, status) in assets where status.isSuspended {
                result.set(exchange, asset, withdraw: status.withdraw == .suspended, deposit: status.deposit == .suspended)
            }
        }
        return result
    }
}
