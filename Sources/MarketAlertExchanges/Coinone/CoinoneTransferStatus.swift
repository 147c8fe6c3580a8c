import Foundation
import MarketAlertCore
import MarketAlertKit

/// Coinone `GET /public/v2/currencies` (public): per currency (`symbol`) `deposit_status` and
/// `withdraw_status`, `normal` when open (anything else, e.g. `suspended`, is not); one network each.
package enum CoinoneTransferStatus {
    package static let adapter = TransferStatusAdapter.publicGET(.coinone, path: "/public/v2/currencies", decode: decode)

    package static func decode(_ body: Data, assets: Set<String>, receivedAt: Date) throws(SourceError) -> TransferReport {
        let source = TransferDecoding.source(.coinone)
        let envelope = try ExchangeJSON.decode(Envelope.self, from: body, source: source)
        guard envelope.result == "success", let currencies = envelope.currencies else {
            throw SourceError(source: source, kind: .api, message: "result \(envelope.result ?? "missing"), error_code \(envelope.error_code ?? "missing")")
        }
        try TransferDecoding.requireRows(currencies.count, .coinone)
        let rows = currencies.map { row in
            (asset: row.symbol, network: row.symbol, withdraw: state(row.withdraw_status), deposit: state(row.deposit_status))
        }
        return TransferDecoding.report(.coinone, receivedAt: receivedAt, assets: assets, rows: rows)
    }

    private static func state(_ text: String?) -> TransferState {
        guard let text, !text.isEmpty else { return .unknown }
        return text == "normal" ? .ok : .suspended
    }

    struct Envelope: Decodable {
        var result: String?
        var error_code: String?
        var currencies: [Currency]?
    }

    struct Currency: Decodable {
        var symbol: String
        var deposit_status: String?
        var withdraw_status: String?
    }
}
