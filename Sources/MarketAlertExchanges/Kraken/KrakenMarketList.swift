import Foundation
import MarketAlertCore
import MarketAlertKit

/// Kraken's market list: `GET /0/public/AssetPairs`, `result` keyed by Kraken's pair name (`XXBTZUSD`,
/// `ADAETH`: the keys `/0/public/Ticker` answers under, so the market id here is that key and the volumes join
/// on it). Asset and quote come from `wsname` (`XBT/USD`, Kraken's codes, `XBT` → `BTC`, `XDG` → `DOGE`);
/// a row without one is skipped (its `base`/`quote`, `XXBT`/`ZUSD`, do not name the asset reliably). A pair
/// with a `status` other than `online` (`cancel_only`, `reduce_only`, `delisted`, …) is not listed; rows
/// without a status (older answers) are.
package struct KrakenMarketList: MarketListSource {
    package let client: ExchangeClient
    package var exchange: ExchangeID { client.exchange }

    static let path = "/0/public/AssetPairs"

    package func fetchMarkets() async throws(SourceError) -> [ListedMarket] {
        let body = try await client.get(Self.path) { _, body in (try? JSONDecoder().decode(Envelope.self, from: body))?.error }
        return try Self.decode(body.body, exchange: exchange)
    }

    struct Envelope: Decodable {
        var messages: [String]
        var result: [String: Pair]?

        enum CodingKeys: String, CodingKey { case messages = "error", result }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            messages = try container.decodeIfPresent([String].self, forKey: .messages) ?? []
            result = messages.isEmpty ? try container.decodeIfPresent([String: Pair].self, forKey: .result) : nil
        }

        var error: SourceError? {
            guard !messages.isEmpty else { return nil }
            return SourceError(source: ExchangeID.kraken.rawValue, kind: .api, message: messages.joined(separator: "; "))
        }
    }

    struct Pair: Decodable {
        var wsname: String?
        var status: String?
    }

    /// Decodes a `/0/public/AssetPairs` body; a non-empty `error` array is `.api`, no online pair `.empty`.
    package static func decode(_ body: Data, exchange: ExchangeID) throws(SourceError) -> [ListedMarket] {
        let source = exchange.rawValue
        let envelope = try ExchangeJSON.decode(Envelope.self, from: body, source: source)
        if let error = envelope.error { throw SourceError(source: source, kind: .api, message: error.message) }
        guard let result = envelope.result else { throw SourceError(source: source, kind: .decode, message: "result: missing") }
        let markets = result.sorted { $0.key < $1.key }.compactMap { key, pair -> ListedMarket? in
            guard pair.status == nil || pair.status == "online", !key.contains("."), let wsname = pair.wsname else { return nil }
            let parts = wsname.split(separator: "/")
            guard parts.count == 2 else { return nil }
            return ListedMarket.row(
                market: key, asset: KrakenPairNames.ourAsset(String(parts[0])), quote: KrakenPairNames.ourAsset(String(parts[1])))
        }
        guard !markets.isEmpty else { throw MarketListSources.emptyError(exchange, path: path) }
        return markets
    }
}
