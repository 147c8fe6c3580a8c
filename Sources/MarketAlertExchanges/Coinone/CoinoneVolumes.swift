import Foundation
import MarketAlertCore
import MarketAlertKit

/// Coinone's 24 h volumes: the KRW tickers (`GET /public/v2/ticker_new/KRW`), `quote_volume` in KRW
/// (`target_volume` is the base amount), keyed by the base as the market list keys it (`BTC`).
package struct CoinoneVolumes: MarketVolumeSource {
    package let client: ExchangeClient

    package func fetchVolumes() async throws(SourceError) -> [String: Double] {
        let body = try await client.get(CoinoneTickerSource.path) { _, body in CoinoneTickerSource.apiError(in: body) }
        return try Self.decode(body.body, source: client.exchange.rawValue)
    }

    struct Row: Decodable {
        var target_currency: String?
        var quote_currency: String?
        var quote_volume: WireVolume?
    }

    package static func decode(_ body: Data, source: String) throws(SourceError) -> [String: Double] {
        let path = CoinoneTickerSource.path
        let rows = try CoinoneRows.decode(Row.self, from: body, source: source, path: path)
        guard !rows.isEmpty else { throw SourceError(source: source, kind: .empty, message: "\(path) listed no ticker") }
        var volumes: [String: Double] = [:]
        for row in rows where row.quote_currency?.uppercased() == "KRW" {
            if let base = row.target_currency, base.count <= 40, let value = row.quote_volume?.value { volumes[base.uppercased()] = value }
        }
        return volumes
    }
}
