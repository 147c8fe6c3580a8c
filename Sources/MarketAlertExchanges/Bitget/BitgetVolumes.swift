import Foundation
import MarketAlertCore
import MarketAlertKit

/// Bitget's 24 h volumes: the same `GET /api/v2/spot/market/tickers` the ticker source reads, `quoteVolume`
/// (in the quote currency; `usdtVolume` is the same converted to USDT, `baseVolume` the base) by `symbol`.
package struct BitgetVolumes: MarketVolumeSource {
    package let client: ExchangeClient

    static let path = "/api/v2/spot/market/tickers"

    package func fetchVolumes() async throws(SourceError) -> [String: Double] {
        let body = try await client.get(Self.path) { _, body in BitgetTickerSource.envelope.apiError(in: body, rows: Row.self) }
        return try Self.decode(body.body, source: client.exchange.rawValue)
    }

    struct Row: Decodable {
        var symbol: String?
        var quoteVolume: WireVolume?
    }

    package static func decode(_ body: Data, source: String) throws(SourceError) -> [String: Double] {
        let rows = try BitgetTickerSource.envelope.allRows(Row.self, in: body)
        guard !rows.isEmpty else { throw SourceError(source: source, kind: .empty, message: "\(path) listed no ticker") }
        var volumes: [String: Double] = [:]
        for row in rows { if let symbol = row.symbol, let value = row.quoteVolume?.value { volumes[symbol] = value } }
        return volumes
    }
}
