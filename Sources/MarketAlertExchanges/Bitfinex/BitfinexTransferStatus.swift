import Foundation
import MarketAlertCore
import MarketAlertKit

/// Bitfinex `GET /v2/conf/pub:map:tx:method,pub:info:tx:status` (public). The conf endpoint takes several keys
/// comma-separated and answers one array per key, in order:
/// - `pub:map:tx:method`: `[[METHOD, [CURRENCY, …]], …]`, the deposit/withdrawal methods (a network each:
///   `BITCOIN` → `BTC`; `TETHERUSE`, `TETHERUSX`, … → `UST`, Tether);
/// - `pub:info:tx:status`: `[[METHOD, DEP_STATUS, WD_STATUS, PH, PH, PH, PH, PAYMENT_ID_DEP, PAYMENT_ID_WD, …], …]`,
///   1 = active, 0 = maintenance.
/// Currencies are Bitfinex's codes, spelled ours through `BitfinexTickerSource.code` (USDT is `UST`). A method
/// the status list does not name is a network whose status is unknown. Errors are `["error", code, message]`.
package enum BitfinexTransferStatus {
    static let path = "/v2/conf/pub:map:tx:method,pub:info:tx:status"

    package static let adapter = TransferStatusAdapter.publicGET(.bitfinex, path: path, decode: decode)

    package static func decode(_ body: Data, assets: Set<String>, receivedAt: Date) throws(SourceError) -> TransferReport {
        let source = TransferDecoding.source(.bitfinex)
        if var error = BitfinexTickerSource.apiError(in: body) {
            error.source = source
            throw error
        }
        let answer = try ExchangeJSON.decode(Answer.self, from: body, source: source)
        try TransferDecoding.requireRows(min(answer.methods.count, answer.statuses.count), .bitfinex)
        // The assets asked for by their Bitfinex code.
        var asked: [String: [String]] = [:]
        for asset in assets { asked[BitfinexTickerSource.code(asset), default: []].append(asset) }
        var statusByMethod: [String: Status] = [:]
        for row in answer.statuses { statusByMethod[row.method] = row }
        var rows: [(asset: String, network: String, withdraw: TransferState, deposit: TransferState)] = []
        for method in answer.methods {
            let status = statusByMethod[method.method]
            for code in method.currencies {
                for asset in asked[code.uppercased()] ?? [] {
                    rows.append((asset, method.method, state(status?.withdraw), state(status?.deposit)))
                }
            }
        }
        return TransferDecoding.report(.bitfinex, receivedAt: receivedAt, assets: assets, rows: rows)
    }

    /// 1 = active, 0 = maintenance; anything else (null, a value not documented) says nothing.
    static func state(_ flag: Int?) -> TransferState {
        switch flag {
        case 1?: .ok
        case 0?: .suspended
        default: .unknown
        }
    }

    /// The two lists, in the order the path asks for them.
    struct Answer: Decodable {
        var methods: [Method]
        var statuses: [Status]

        init(from decoder: any Decoder) throws {
            var lists = try decoder.unkeyedContainer()
            methods = try lists.decode([Method].self)
            statuses = try lists.decode([Status].self)
        }
    }

    /// `[METHOD, [CURRENCY, …]]`.
    struct Method: Decodable {
        var method: String
        var currencies: [String]

        init(from decoder: any Decoder) throws {
            var row = try decoder.unkeyedContainer()
            method = try row.decode(String.self)
            currencies = try row.decode([String].self)
        }
    }

    /// `[METHOD, DEP_STATUS, WD_STATUS, …]`: the members after these three are not read.
    struct Status: Decodable {
        var method: String
        var deposit: Int?
        var withdraw: Int?

        init(from decoder: any Decoder) throws {
            var row = try decoder.unkeyedContainer()
            method = try row.decode(String.self)
            deposit = try row.decodeIfPresent(Int.self)
            withdraw = try row.decodeIfPresent(Int.self)
        }
    }
}
