import Foundation
import MarketAlertCore
import MarketAlertKit

/// Upbit's 24 h volumes: `GET /v1/ticker/all?quote_currencies=KRW,BTC,USDT` (every market of those quotes
/// in one request; rows as `/v1/ticker`'s), `acc_trade_price_24h` in the quote currency by market code.
package struct UpbitVolumes: MarketVolumeSource {
    package let client: ExchangeClient

    static let path = "/v1/ticker/all"
    static let quoteCurrencies = "KRW,BTC,USDT"

    package func fetchVolumes() async throws(SourceError) -> [String: Double] {
        let body = try await client.get(Self.path, query: [("quote_currencies", Self.quoteCurrencies)]) {
            UpbitTickerSource.apiError(in: $1, status: $0)
        }
        return try Self.decode(body.body, source: client.exchange.rawValue)
    }

    struct Row: Decodable {
        var market: String
        var acc_trade_price_24h: WireVolume?
    }

    package static func decode(_ body: Data, source: String) throws(SourceError) -> [String: Double] {
        if ExchangeJSON.firstSignificantByte(body) == UInt8(ascii: "{") {
            throw UpbitTickerSource.apiError(in: body, status: 200)
                ?? SourceError(source: source, kind: .decode, message: "\(path): expected a JSON array of tickers, got an object")
        }
        let rows = try ExchangeJSON.decode([Row].self, from: body, source: source)
        guard !rows.isEmpty else { throw SourceError(source: source, kind: .empty, message: "\(path) listed no ticker") }
        var volumes: [String: Double] = [:]
        for row in rows { if let value = row.acc_trade_price_24h?.value { volumes[row.market] = value } }
        return volumes
    }
}
