import Foundation
import MarketAlertCore
import MarketAlertKit

/// KuCoin's 24 h volumes: the same `GET /api/v1/market/allTickers` the ticker source reads, `volValue` (the
/// 24 h turnover in the quote currency; `vol` is the base amount) by `symbol` (`BTC-USDT`).
package struct KuCoinVolumes: MarketVolumeSource {
    package let client: ExchangeClient

    package func fetchVolumes() async throws(SourceError) -> [String: Double] {
        let body = try await client.get(KuCoinTickerSource.path) { _, body in KuCoinTickerSource.apiError(in: body) }
        return try Self.decode(body.body, source: client.exchange.rawValue)
    }

    struct Envelope: Decodable {
        var code: WireCode
        var msg: String?
        var data: Payload?

        struct Payload: Decodable {
            var ticker: [Row]?
        }
    }

    struct Row: Decodable {
        var symbol: String?
        var volValue: WireVolume?
    }

    package static func decode(_ body: Data, source: String) throws(SourceError) -> [String: Double] {
        let path = KuCoinTickerSource.path
        let envelope = try ExchangeJSON.decode(Envelope.self, from: body, source: source)
        guard envelope.code.text == "200000" else {
            throw SourceError(source: source, kind: .api, message: "code \(envelope.code.text): \(envelope.msg ?? "")")
        }
        guard let rows = envelope.data?.ticker else {
            throw SourceError(source: source, kind: .decode, message: "\(path): data.ticker: missing")
        }
        guard !rows.isEmpty else { throw SourceError(source: source, kind: .empty, message: "\(path) listed no ticker") }
        var volumes: [String: Double] = [:]
        for row in rows { if let symbol = row.symbol, let value = row.volValue?.value { volumes[symbol] = value } }
        return volumes
    }
}
