import Foundation
import MarketAlertCore
import MarketAlertKit

/// Bitfinex's 24 h volumes: the same `GET /v2/tickers?symbols=ALL` the ticker source reads. A trading pair's
/// `VOLUME` (member 8) is in base units, so its quote volume is `VOLUME × LAST_PRICE` (member 7), keyed by the
/// symbol its market list uses (`tBTCUSD`). Funding rows (`fUSD`) and test pairs are skipped; a pair row whose
/// volume or price is missing, negative or not finite has an unknown volume.
package struct BitfinexVolumes: MarketVolumeSource {
    package let client: ExchangeClient

    static let path = "/v2/tickers"

    package func fetchVolumes() async throws(SourceError) -> [String: Double] {
        let body = try await client.get(Self.path, query: [("symbols", "ALL")]) { _, body in BitfinexTickerSource.apiError(in: body) }
        return try Self.decode(body.body, source: client.exchange.rawValue)
    }

    /// One ticker row: its symbol, and for a trading pair its last price and base volume.
    struct Row: Decodable {
        var symbol: String
        var quoteVolume: Double?

        init(from decoder: any Decoder) throws {
            var members = try decoder.unkeyedContainer()
            symbol = try members.decode(String.self)
            guard symbol.hasPrefix("t"), members.count == 11 else { return }
            var numbers: [Double?] = []
            numbers.reserveCapacity(10)
            while !members.isAtEnd {
                numbers.append(try members.decodeNil() ? nil : try members.decode(Double.self))
            }
            guard let last = numbers[6], let volume = numbers[7] else { return }
            let quote = last * volume
            quoteVolume = quote.isFinite && last > 0 && volume >= 0 ? quote : nil
        }
    }

    package static func decode(_ body: Data, source: String) throws(SourceError) -> [String: Double] {
        if let error = BitfinexTickerSource.apiError(in: body) { throw error }
        let rows = try ExchangeJSON.decode([Row].self, from: body, source: source)
        guard !rows.isEmpty else { throw SourceError(source: source, kind: .empty, message: "\(path) listed no ticker") }
        var volumes: [String: Double] = [:]
        for row in rows where !BitfinexTickerSource.isTestPair(row.symbol) {
            if let value = row.quoteVolume { volumes[row.symbol] = value }
        }
        return volumes
    }
}
