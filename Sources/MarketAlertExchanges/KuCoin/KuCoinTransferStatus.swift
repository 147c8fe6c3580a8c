import Foundation
import MarketAlertCore
import MarketAlertKit

/// KuCoin `GET /api/v3/currencies` (public): per currency its `chains`, each with `isWithdrawEnabled` and
/// `isDepositEnabled`; `code` "200000" on success. A currency without chains (fiat) is unknown.
package enum KuCoinTransferStatus {
    package static let adapter = TransferStatusAdapter.publicGET(.kucoin, path: "/api/v3/currencies", decode: decode)

    package static func decode(_ body: Data, assets: Set<String>, receivedAt: Date) throws(SourceError) -> TransferReport {
        let source = TransferDecoding.source(.kucoin)
        let envelope = try ExchangeJSON.decode(Envelope.self, from: body, source: source)
        guard envelope.code == "200000", let data = envelope.data else {
            throw SourceError(source: source, kind: .api, message: "code \(envelope.code ?? "missing"): \(envelope.msg ?? "no message")")
        }
        try TransferDecoding.requireRows(data.count, .kucoin)
        var flat: [(asset: String, network: String, withdraw: TransferState, deposit: TransferState)] = []
        for row in data {
            for chain in row.chains ?? [] {
                flat.append((
                    row.currency, chain.chainName ?? chain.chainId ?? row.currency, TransferState(enabled: chain.isWithdrawEnabled),
                    TransferState(enabled: chain.isDepositEnabled)))
            }
        }
        return TransferDecoding.report(.kucoin, receivedAt: receivedAt, assets: assets, rows: flat)
    }

    struct Envelope: Decodable {
        var code: String?
        var msg: String?
        var data: [Currency]?
    }

    struct Currency: Decodable {
        var currency: String
        var chains: [Chain]?
    }

    struct Chain: Decodable {
        var chainName: String?
        var chainId: String?
        var isWithdrawEnabled: Bool?
        var isDepositEnabled: Bool?
    }
}
