import Foundation
import MarketAlertCore
import MarketAlertKit

/// OKX's 24 h volumes: the same `GET /api/v5/market/tickers?instType=SPOT` the ticker source reads,
/// `volCcy24h` (for spot: in the quote currency) by `instId`.
package struct OKXVolumes: MarketVolumeSource {
    package let client: ExchangeClient

    static let path = "/api/v5/market/tickers"

    package func fetchVolumes() async throws(SourceError) -> [String: Double] {
        let body = try await client.get(Self.path, query: [("instType", "SPOT")]) { _, body in
            OKXTickerSource.envelope.apiError(in: body, rows: Row.self)
        }
        return try Self.decode(body.body, source: client.exchange.rawValue)
    }

    struct Row: Decodable {
        var instId: String?
        var volCcy24h: WireVolume?
    }

    package static func decode(_ body: Data, source: String) throws(SourceError) -> [String: Double] {
        let rows = try OKXTickerSource.envelope.allRows(Row.self, in: body)
        guard !rows.isEmpty else { throw SourceError(source: source, kind: .empty, message: "\(path) listed no ticker") }
        var volumes: [String: Double] = [:]
        for row in rows { if let id = row.instId, let value = row.volCcy24h?.value { volumes[id] = value } }
        return volumes
    }
}
