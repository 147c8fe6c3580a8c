import Foundation
import MarketAlertCore
import MarketAlertKit

/// Bitget v2 `GET /api/v2/spot/public/coins` (public): per coin its `chains`, each with `withdrawable` and
/// `rechargeable` (deposit) as the strings `"true"`/`"false"`; `code` "00000" on success.
package enum BitgetTransferStatus {
    package static let adapter = TransferStatusAdapter.publicGET(.bitget, path: "/api/v2/spot/public/coins", decode: decode)

    package static func decode(_ body: Data, assets: Set<String>, receivedAt: Date) throws(SourceError) -> TransferReport {
        let source = TransferDecoding.source(.bitget)
        let envelope = try ExchangeJSON.decode(Envelope.self, from: body, source: source)
        guard envelope.code == "00000", let data = envelope.data else {
            throw SourceError(source: source, kind: .api, message: "code \(envelope.code ?? "missing"): \(envelope.msg ?? "no message")")
        }
        try TransferDecoding.requireRows(data.count, .bitget)
        var flat: [(asset: String, network: String, withdraw: TransferState, deposit: TransferState)] = []
        for row in data {
            for chain in row.chains ?? [] {
                flat.append((row.coin, chain.chain, state(chain.withdrawable), state(chain.rechargeable)))
            }
        }
        return TransferDecoding.report(.bitget, receivedAt: receivedAt, assets: assets, rows: flat)
    }

    private static func state(_ text: String?) -> TransferState {
        switch text {
        case "true": .ok
        case "false": .suspended
        default: .unknown
        }
    }

    struct Envelope: Decodable {
        var code: String?
        var msg: String?
        var data: [Coin]?
    }

    struct Coin: Decodable {
        var coin: String
        var chains: [Chain]?
    }

    struct Chain: Decodable {
        var chain: String
        var withdrawable: String?
        var rechargeable: String?
    }
}
