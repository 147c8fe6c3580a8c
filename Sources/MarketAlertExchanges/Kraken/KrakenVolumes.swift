import Foundation
import MarketAlertCore
import MarketAlertKit

/// Kraken's 24 h volumes: `GET /0/public/Ticker` without `pair` (every pair, keyed by the pair name the market
/// list uses). Kraken gives the volume in the base asset (`v[1]`, last 24 hours) with its volume-weighted
/// average price (`p[1]`, same window); their product is the 24 h volume in the quote currency (the last
/// price `c[0]` stands in when `p` is missing).
package struct KrakenVolumes: MarketVolumeSource {
    package let client: ExchangeClient

    static let path = "/0/public/Ticker"

    package func fetchVolumes() async throws(SourceError) -> [String: Double] {
        let body = try await client.get(Self.path) { _, body in (try? JSONDecoder().decode(Envelope.self, from: body))?.error }
        return try Self.decode(body.body, source: client.exchange.rawValue)
    }

    struct Envelope: Decodable {
        var messages: [String]
        var result: [String: Row]?

        enum CodingKeys: String, CodingKey { case messages = "error", result }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            messages = try container.decodeIfPresent([String].self, forKey: .messages) ?? []
            result = messages.isEmpty ? try container.decodeIfPresent([String: Row].self, forKey: .result) : nil
        }

        var error: SourceError? {
            guard !messages.isEmpty else { return nil }
            return SourceError(source: ExchangeID.kraken.rawValue, kind: .api, message: messages.joined(separator: "; "))
        }
    }

    /// `v` = [today, last 24 h] base volume, `p` = [today, last 24 h] VWAP, `c` = [last price, lot volume].
    struct Row: Decodable {
        var v: [WireVolume]?
        var p: [WireVolume]?
        var c: [WireVolume]?

        var quoteVolume: Double? {
            guard let base = v?.dropFirst().first?.value, let price = p?.dropFirst().first?.value ?? c?.first?.value else { return nil }
            let volume = base * price
            return volume.isFinite ? volume : nil
        }
    }

    package static func decode(_ body: Data, source: String) throws(SourceError) -> [String: Double] {
        let envelope = try ExchangeJSON.decode(Envelope.self, from: body, source: source)
        if let error = envelope.error { throw SourceError(source: source, kind: .api, message: error.message) }
        guard let result = envelope.result else { throw SourceError(source: source, kind: .decode, message: "result: missing") }
        guard !result.isEmpty else { throw SourceError(source: source, kind: .empty, message: "\(path) listed no ticker") }
        var volumes: [String: Double] = [:]
        for (key, row) in result { if let value = row.quoteVolume { volumes[key] = value } }
        return volumes
    }
}
