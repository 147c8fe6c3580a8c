import Foundation
import MarketAlertCore
import MarketAlertKit

/// Coinbase Exchange `GET /currencies` (public): per currency its `status` and `supported_networks[]`, each
/// with a `status`. Coinbase does not tell deposits from withdrawals: a network `online` is open both ways,
/// any other status (`offline`, `delisted`) closed both ways; a currency without networks follows its own
/// status.
package enum CoinbaseTransferStatus {
    package static let adapter = TransferStatusAdapter.publicGET(.coinbase, path: "/currencies", decode: decode)

    package static func decode(_ body: Data, assets: Set<String>, receivedAt: Date) throws(SourceError) -> TransferReport {
        let rows = try ExchangeJSON.decode([Currency].self, from: body, source: TransferDecoding.source(.coinbase))
        try TransferDecoding.requireRows(rows.count, .coinbase)
        var flat: [(asset: String, network: String, withdraw: TransferState, deposit: TransferState)] = []
        for row in rows {
            let networks = row.supported_networks ?? []
            let currencyOpen = state(row.status)
            if networks.isEmpty || currencyOpen == .suspended {
                flat.append((row.id, row.default_network ?? row.id, currencyOpen, currencyOpen))
                continue
            }
            for network in networks {
                let open = state(network.status)
                flat.append((row.id, network.id, open, open))
            }
        }
        return TransferDecoding.report(.coinbase, receivedAt: receivedAt, assets: assets, rows: flat)
    }

    private static func state(_ text: String?) -> TransferState {
        guard let text, !text.isEmpty else { return .unknown }
        return text == "online" ? .ok : .suspended
    }

    struct Currency: Decodable {
        var id: String
        var status: String?
        var default_network: String?
        var supported_networks: [Network]?
    }

    struct Network: Decodable {
        var id: String
        var status: String?
    }
}
