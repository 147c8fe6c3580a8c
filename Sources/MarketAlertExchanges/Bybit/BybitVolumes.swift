import Foundation
import MarketAlertCore
import MarketAlertKit

/// Bybit's 24 h volumes: the same `GET /v5/market/tickers?category=spot` the ticker source reads,
/// `turnover24h` (in the quote currency; `volume24h` is the base) by `symbol`.
package struct BybitVolumes: MarketVolumeSource {
    package let client: ExchangeClient

    static let path = "/v5/market/tickers"

    package func fetchVolumes() async throws(SourceError) -> [String: Double] {
        let body = try await client.get(Self.path, query: [("category", "spot")]) { _, body in BybitTickerSource.apiError(in: body) }
        return try Self.decode(body.body, source: client.exchange.rawValue)
    }

    struct Row: Decodable {
        var symbol: String?
        var turnover24h: WireVolume?
    }

    package static func decode(_ body: Data, source: String) throws(SourceError) -> [String: Double] {
        let list = try BybitListEnvelope<Row>.page(body, source: source).rows
        guard !list.isEmpty else { throw SourceError(source: source, kind: .empty, message: "\(path) listed no ticker") }
        var volumes: [String: Double] = [:]
        for row in list { if let symbol = row.symbol, let value = row.turnover24h?.value { volumes[symbol] = value } }
        return volumes
    }
}
