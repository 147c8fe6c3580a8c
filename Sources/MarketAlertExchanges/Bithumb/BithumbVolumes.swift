import Foundation
import MarketAlertCore
import MarketAlertKit

/// Bithumb's 24 h volumes: `GET /public/ticker/ALL_KRW` (the KRW markets in one request),
/// `acc_trade_value_24H` in KRW per coin, keyed by the v1 market code its market list uses (`KRW-BTC`).
/// Its BTC and USDT markets have no volume here (unknown: a `min_volume_24h` leaves them out).
package struct BithumbVolumes: MarketVolumeSource {
    package let client: ExchangeClient

    static let path = "/public/ticker/ALL_KRW"

    package func fetchVolumes() async throws(SourceError) -> [String: Double] {
        let body = try await client.get(Self.path) { _, body in BithumbTickerSource.apiError(in: body) }
        return try Self.decode(body.body, source: client.exchange.rawValue)
    }

    struct Envelope: Decodable {
        var status: WireCode
        var data: Coins?
    }

    /// `data`: coin → ticker, plus `date` (skipped).
    struct Coins: Decodable {
        var volumes: [String: Double] = [:]

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: BithumbTickerSource.CoinMap.Key.self)
            for key in container.allKeys where key.stringValue != "date" && key.stringValue.count <= 20 {
                guard let row = try? container.decode(Row.self, forKey: key), let value = row.acc_trade_value_24H?.value else { continue }
                volumes["KRW-" + key.stringValue.uppercased()] = value
            }
        }
    }

    struct Row: Decodable {
        var acc_trade_value_24H: WireVolume?
    }

    package static func decode(_ body: Data, source: String) throws(SourceError) -> [String: Double] {
        if let error = BithumbTickerSource.apiError(in: body) { throw error }
        let envelope = try ExchangeJSON.decode(Envelope.self, from: body, source: source)
        guard envelope.status.text == "0000", let coins = envelope.data, !coins.volumes.isEmpty else {
            throw SourceError(source: source, kind: .empty, message: "\(path) gave no ticker (status \(envelope.status.text.prefix(8)))")
        }
        return coins.volumes
    }
}
