import Foundation
import MarketAlertCore
import MarketAlertKit

/// HTX's 24 h volumes: the same `GET /market/tickers` the ticker source reads, `vol` by `symbol` (`btcusdt`,
/// the id its market list uses). In HTX's tickers `vol` is the 24 h turnover in the quote currency and
/// `amount` the base amount.
package struct HTXVolumes: MarketVolumeSource {
    package let client: ExchangeClient

    static let path = "/market/tickers"

    package func fetchVolumes() async throws(SourceError) -> [String: Double] {
        let body = try await client.get(Self.path) { _, body in HTXTickerSource.apiError(in: body) }
        return try Self.decode(body.body, source: client.exchange.rawValue)
    }

    struct Row: Decodable {
        var symbol: String?
        var vol: WireVolume?
    }

    package static func decode(_ body: Data, source: String) throws(SourceError) -> [String: Double] {
        let rows = try HTXRows.decode(Row.self, from: body, source: source, path: path)
        guard !rows.isEmpty else { throw SourceError(source: source, kind: .empty, message: "\(path) listed no ticker") }
        var volumes: [String: Double] = [:]
        for row in rows { if let symbol = row.symbol, let value = row.vol?.value { volumes[symbol.lowercased()] = value } }
        return volumes
    }
}
