import Foundation
import MarketAlertCore
import MarketAlertKit

/// Binance's 24 h volumes: `GET /api/v3/ticker/24hr` without symbols (every symbol, request weight 80, once
/// an hour), `quoteVolume` in the quote currency by symbol (`BTCUSDT`).
package struct BinanceVolumes: MarketVolumeSource {
    package let client: ExchangeClient

    static let path = "/api/v3/ticker/24hr"

    package func fetchVolumes() async throws(SourceError) -> [String: Double] {
        let body = try await client.get(Self.path) { _, body in BinanceTickerSource.apiError(in: body) }
        return try Self.decode(body.body, source: client.exchange.rawValue)
    }

    struct Row: Decodable {
        var symbol: String
        var quoteVolume: WireVolume?
    }

    package static func decode(_ body: Data, source: String) throws(SourceError) -> [String: Double] {
        if ExchangeJSON.firstSignificantByte(body) == UInt8(ascii: "{") {
            throw BinanceTickerSource.apiError(in: body)
                ?? SourceError(source: source, kind: .decode, message: "\(path): expected a JSON array of tickers, got an object")
        }
        let rows = try ExchangeJSON.decode([Row].self, from: body, source: source)
        guard !rows.isEmpty else { throw SourceError(source: source, kind: .empty, message: "\(path) listed no ticker") }
        var volumes: [String: Double] = [:]
        for row in rows { if let value = row.quoteVolume?.value { volumes[row.symbol] = value } }
        return volumes
    }
}
