import Foundation
import MarketAlertCore
import MarketAlertKit

/// Gate's 24 h volumes: the same `GET /api/v4/spot/tickers` the ticker source reads, `quote_volume` (in the
/// quote currency) by `currency_pair`, the id its market list uses.
package struct GateVolumes: MarketVolumeSource {
    package let client: ExchangeClient

    package func fetchVolumes() async throws(SourceError) -> [String: Double] {
        let body = try await client.get(GateTickerSource.path) { _, body in GateTickerSource.apiError(in: body) }
        return try Self.decode(body.body, source: client.exchange.rawValue)
    }

    struct Row: Decodable {
        var currency_pair: String?
        var quote_volume: WireVolume?
    }

    package static func decode(_ body: Data, source: String) throws(SourceError) -> [String: Double] {
        let path = GateTickerSource.path
        if ExchangeJSON.firstSignificantByte(body) == UInt8(ascii: "{") {
            throw GateTickerSource.apiError(in: body)
                ?? SourceError(source: source, kind: .decode, message: "\(path): expected a JSON array of tickers, got an object")
        }
        let rows = try ExchangeJSON.decode([Row].self, from: body, source: source)
        guard !rows.isEmpty else { throw SourceError(source: source, kind: .empty, message: "\(path) listed no ticker") }
        var volumes: [String: Double] = [:]
        for row in rows {
            if let pair = row.currency_pair, let value = row.quote_volume?.value { volumes[pair.uppercased()] = value }
        }
        return volumes
    }
}
