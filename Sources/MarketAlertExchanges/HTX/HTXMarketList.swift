import Foundation
import MarketAlertCore
import MarketAlertKit

/// HTX's market list: `GET /v2/settings/common/symbols` ("Get all Supported Trading Symbol (V2)"; the v1
/// `/v1/common/symbols` is marked deprecated in HTX's spot docs), `{"status":"ok","data":[…],"ts","full":1}`
/// with abbreviated rows: `sc` the symbol (`btcusdt`, the ticker's id), `bc` / `qc` base and quote (lower
/// case), `state` (`online`, `offline`, `pre-online`, `suspend`, …). Only `online` symbols count as listed.
/// Failures are `{"status":"error","err-code":…,"err-msg":…}`.
package struct HTXMarketList: MarketListSource {
    package let client: ExchangeClient
    package var exchange: ExchangeID { client.exchange }

    static let path = "/v2/settings/common/symbols"

    package func fetchMarkets() async throws(SourceError) -> [ListedMarket] {
        let body = try await client.get(Self.path) { _, body in HTXTickerSource.apiError(in: body) }
        return try Self.decode(body.body, exchange: exchange)
    }

    struct Symbol: Decodable {
        var sc: String?
        var bc: String?
        var qc: String?
        var state: String?
    }

    /// Decodes a `/v2/settings/common/symbols` body; `status` other than `ok` is `.api`, no online symbol `.empty`.
    package static func decode(_ body: Data, exchange: ExchangeID) throws(SourceError) -> [ListedMarket] {
        let rows = try HTXRows.decode(Symbol.self, from: body, source: exchange.rawValue, path: path)
        let markets = rows.compactMap { row -> ListedMarket? in
            guard row.state == "online" else { return nil }
            return ListedMarket.row(market: row.sc?.lowercased(), asset: row.bc, quote: row.qc)
        }
        guard !markets.isEmpty else { throw MarketListSources.emptyError(exchange, path: path) }
        return markets
    }
}

/// HTX's `{"status":"ok","data":[rows]}` envelope for the whole-market reads: `status` other than `ok` is
/// `.api` (`err-code: err-msg`, as the ticker source says it), a missing `data` `.decode`.
enum HTXRows {
    struct Envelope<Row: Decodable>: Decodable {
        var status: String
        var errCode: String?
        var errMsg: String?
        var data: [Row]?

        enum CodingKeys: String, CodingKey {
            case status, data
            case errCode = "err-code"
            case errMsg = "err-msg"
        }
    }

    static func decode<Row: Decodable>(_ row: Row.Type, from body: Data, source: String, path: String) throws(SourceError) -> [Row] {
        let envelope = try ExchangeJSON.decode(Envelope<Row>.self, from: body, source: source)
        guard envelope.status == "ok" else {
            throw SourceError(source: source, kind: .api, message: "\(envelope.errCode ?? envelope.status): \(envelope.errMsg ?? "")")
        }
        guard let rows = envelope.data else { throw SourceError(source: source, kind: .decode, message: "\(path): data: missing") }
        return rows
    }
}
