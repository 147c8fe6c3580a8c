import Foundation
import MarketAlertCore
import MarketAlertKit

/// Gate v4 `GET /api/v4/spot/currencies` (public): every currency with `withdraw_disabled`,
/// `deposit_disabled` and `delisted`, and per chain (`chains[].name`) the same two flags.
package enum GateTransferStatus {
    package static let adapter = TransferStatusAdapter.publicGET(.gate, path: "/api/v4/spot/currencies", decode: decode)

    package static func decode(_ body: Data, assets: Set<String>, receivedAt: Date) throws(SourceError) -> TransferReport {
        let rows = try ExchangeJSON.decode([Currency].self, from: body, source: TransferDecoding.source(.gate))
        try TransferDecoding.requireRows(rows.count, .gate)
        var flat: [(asset: String, network: String, withdraw: TransferState, deposit: TransferState)] = []
        for row in rows {
            let delisted = row.delisted == true
            let chains = row.chains ?? []
            if chains.isEmpty {
                flat.append((row.currency, row.chain ?? row.currency, state(disabled: row.withdraw_disabled, delisted), state(disabled: row.deposit_disabled, delisted)))
            }
            for chain in chains {
                flat.append((row.currency, chain.name, state(disabled: chain.withdraw_disabled, delisted), state(disabled: chain.deposit_disabled, delisted)))
            }
        }
        return TransferDecoding.report(.gate, receivedAt: receivedAt, assets: assets, rows: flat)
    }

    private static func state(disabled: Bool?, _ delisted: Bool) -> TransferState {
        delisted ? .suspended : TransferState(enabled: disabled.map { !$0 })
    }

    struct Currency: Decodable {
        var currency: String
        var delisted: Bool?
        var withdraw_disabled: Bool?
        var deposit_disabled: Bool?
        var chain: String?
        var chains: [Chain]?
    }

    struct Chain: Decodable {
        var name: String
        var withdraw_disabled: Bool?
        var deposit_disabled: Bool?
    }
}
