import Foundation
import MarketAlertCore
import MarketAlertKit

/// Kraken `GET /0/public/Assets` (public): per asset its `status`: `enabled` (both ways), `deposit_only`,
/// `withdrawal_only`, `funding_temporarily_disabled` or `disabled` (neither); no networks. Assets are keyed
/// by Kraken's code (`XXBT`) with the `altname` (`XBT`) spelled as ours through `KrakenPairNames` (BTC,
/// DOGE); suffixed variants (`ATOM.S` staked, `XBT.M` margin) are not spot balances and are skipped.
package enum KrakenTransferStatus {
    package static let adapter = TransferStatusAdapter.publicGET(.kraken, path: "/0/public/Assets", decode: decode)

    package static func decode(_ body: Data, assets: Set<String>, receivedAt: Date) throws(SourceError) -> TransferReport {
        let source = TransferDecoding.source(.kraken)
        let envelope = try ExchangeJSON.decode(Envelope.self, from: body, source: source)
        if let error = envelope.error?.first {
            throw SourceError(source: source, kind: .api, message: "Kraken error \(error)")
        }
        guard let result = envelope.result else { throw SourceError(source: source, kind: .decode, message: "result: missing") }
        try TransferDecoding.requireRows(result.count, .kraken)
        var rows: [(asset: String, network: String, withdraw: TransferState, deposit: TransferState)] = []
        for (key, row) in result.sorted(by: { $0.key < $1.key }) where !key.contains(".") {
            let asset = ours(row.altname ?? key)
            let (withdraw, deposit) = states(row.status)
            rows.append((asset, asset, withdraw, deposit))
        }
        return TransferDecoding.report(.kraken, receivedAt: receivedAt, assets: assets, rows: rows)
    }

    /// Kraken's code as ours: `XBT` → `BTC`, `XDG` → `DOGE`, others unchanged.
    static func ours(_ code: String) -> String { KrakenPairNames.ourAsset(code) }

    private static func states(_ status: String?) -> (TransferState, TransferState) {
        switch status {
        case "enabled": (.ok, .ok)
        case "deposit_only": (.suspended, .ok)
        case "withdrawal_only": (.ok, .suspended)
        case "funding_temporarily_disabled", "disabled": (.suspended, .suspended)
        default: (.unknown, .unknown)
        }
    }

    struct Envelope: Decodable {
        var error: [String]?
        var result: [String: Asset]?
    }

    struct Asset: Decodable {
        var altname: String?
        var status: String?
    }
}
