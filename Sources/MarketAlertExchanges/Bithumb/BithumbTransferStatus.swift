import Foundation
import MarketAlertCore
import MarketAlertKit

/// Bithumb `GET /public/assetsstatus/multichain/ALL` (public; API 1.0 reference "입/출금 지원 현황"): `data`
/// lists one row per coin and network, `currency`, `net_type`, `deposit_status` and `withdrawal_status`
/// (1 possible, 0 not; Bithumb documents integers, a string `"1"`/`"0"` is read the same way, any other
/// value is unknown). `status` other than `"0000"` is Bithumb's error envelope, as for its tickers.
package enum BithumbTransferStatus {
    package static let path = "/public/assetsstatus/multichain/ALL"
    package static let adapter = TransferStatusAdapter.publicGET(.bithumb, path: path, decode: decode)

    package static func decode(_ body: Data, assets: Set<String>, receivedAt: Date) throws(SourceError) -> TransferReport {
        let source = TransferDecoding.source(.bithumb)
        if let refusal = BithumbTickerSource.apiError(in: body) {
            throw SourceError(source: source, kind: refusal.kind, message: refusal.message)
        }
        let envelope = try ExchangeJSON.decode(Envelope.self, from: body, source: source)
        guard let rows = envelope.data else { throw SourceError(source: source, kind: .decode, message: "data: missing") }
        try TransferDecoding.requireRows(rows.count, .bithumb)
        let flat = rows.map { row in
            (asset: row.currency, network: row.net_type ?? row.currency, withdraw: state(row.withdrawal_status), deposit: state(row.deposit_status))
        }
        return TransferDecoding.report(.bithumb, receivedAt: receivedAt, assets: assets, rows: flat)
    }

    private static func state(_ flag: WireCode?) -> TransferState {
        switch flag?.text {
        case "1": .ok
        case "0": .suspended
        default: .unknown
        }
    }

    /// A success (`status` "0000"; refusals were read by `BithumbTickerSource.apiError` before).
    struct Envelope: Decodable {
        var status: WireCode
        var data: [Row]?
    }

    struct Row: Decodable {
        var currency: String
        var net_type: String?
        var deposit_status: WireCode?
        var withdrawal_status: WireCode?
    }
}
