import Foundation
import MarketAlertCore
import MarketAlertKit

/// Bybit v5's `{"retCode", "retMsg", "result": {"list": [rows], "nextPageCursor"}}` for the whole-market reads
/// (market list, bulk volumes): `retCode != 0` is `.api`, a missing `result.list` `.decode`.
struct BybitListEnvelope<Row: Decodable>: Decodable {
    var retCode: WireCode
    var retMsg: String?
    var result: Result?

    struct Result: Decodable {
        var list: [Row]?
        var nextPageCursor: String?
    }

    /// The rows of `body` and the cursor of the next page (nil: the last page).
    static func page(_ body: Data, source: String) throws(SourceError) -> (rows: [Row], nextCursor: String?) {
        let envelope = try ExchangeJSON.decode(Self.self, from: body, source: source)
        guard envelope.retCode.text == "0" else {
            throw SourceError(source: source, kind: .api, message: "retCode \(envelope.retCode.text): \(envelope.retMsg ?? "")")
        }
        guard let result = envelope.result, let list = result.list else {
            throw SourceError(source: source, kind: .decode, message: "result.list: missing")
        }
        return (list, result.nextPageCursor.flatMap { $0.isEmpty ? nil : $0 })
    }
}
