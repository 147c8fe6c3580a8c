import Foundation
import MarketAlertCore
import MarketAlertKit

/// HTX `GET /v2/reference/currencies` (public): per currency (lower case) its chains, each with
/// `depositStatus` and `withdrawStatus` (`allowed` | `prohibited`); `code` 200 on success.
package enum HTXTransferStatus {
    package static let adapter = TransferStatusAdapter.publicGET(.htx, path: "/v2/reference/currencies", decode: decode)

    package static func decode(_ body: Data, assets: Set<String>, receivedAt: Date) throws(SourceError) -> TransferReport {
        let source = TransferDecoding.source(.htx)
        let envelope = try ExchangeJSON.decode(Envelope.self, from: body, source: source)
        guard envelope.code == 200, let data = envelope.data else {
            throw SourceError(source: source, kind: .api, message: "code \(envelope.code.map(String.init) ?? "missing"): \(envelope.message ?? "no message")")
        }
        try TransferDecoding.requireRows(data.count, .htx)
        var flat: [(asset: String, network: String, withdraw: TransferState, deposit: TransferState)] = []
        for row in data {
            for chain in row.chains ?? [] {
                flat.append((row.currency, chain.displayName ?? chain.chain, state(chain.withdrawStatus), state(chain.depositStatus)))
            }
        }
        return TransferDecoding.report(.htx, receivedAt: receivedAt, assets: assets, rows: flat)
    }

    private static func state(_ text: String?) -> TransferState {
        switch text {
        case "allowed": .ok
        case "prohibited": .suspended
        default: .unknown
        }
    }

    struct Envelope: Decodable {
        var code: Int?
        var message: String?
        var data: [Currency]?
    }

    struct Currency: Decodable {
        var currency: String
        var chains: [Chain]?
    }

    struct Chain: Decodable {
        var chain: String
        var displayName: String?
        var depositStatus: String?
        var withdrawStatus: String?
    }
}
