import Foundation
import MarketAlertCore
import MarketAlertKit

/// Bitfinex's market list: `GET /v2/conf/pub:list:pair:exchange`, the exchange (spot) pairs as one list in a
/// list (`[["BTCUSD","BTCUST","AVAX:USD",…]]`): base and quote in Bitfinex's own codes, with a `:` between them
/// when either is longer than three letters. The market id is the ticker symbol (`tBTCUSD`), the asset and
/// quote our codes (`UST` → USDT, the ticker source's mapping read backwards). Test pairs (`TESTBTC:TESTUSD`)
/// are never listed. Errors are `["error", code, "message"]`.
package struct BitfinexMarketList: MarketListSource {
    package let client: ExchangeClient
    package var exchange: ExchangeID { client.exchange }

    static let path = "/v2/conf/pub:list:pair:exchange"

    package func fetchMarkets() async throws(SourceError) -> [ListedMarket] {
        let body = try await client.get(Self.path) { _, body in BitfinexTickerSource.apiError(in: body) }
        return try Self.decode(body.body, exchange: exchange)
    }

    /// Bitfinex's codes → ours (`UST` → `USDT`, `LUNA` → `LUNC`, `LUNA2` → `LUNA`).
    static let ourCode: [String: String] = Dictionary(
        BitfinexTickerSource.bitfinexCode.map { ($0.value, $0.key) }, uniquingKeysWith: { first, _ in first })

    /// `BTCUSD` → BTC/USD, `AVAX:USD` → AVAX/USD, `BTCUST` → BTC/USDT; nil for a test pair or a malformed name.
    static func market(_ pair: String) -> ListedMarket? {
        let parts: [Substring]
        if pair.contains(":") {
            parts = pair.split(separator: ":", omittingEmptySubsequences: false)
        } else if pair.count == 6 {
            parts = [pair.prefix(3), pair.suffix(3)]
        } else {
            return nil
        }
        guard parts.count == 2, !BitfinexTickerSource.isTestPair("t" + pair) else { return nil }
        let base = String(parts[0]).uppercased()
        let quote = String(parts[1]).uppercased()
        return ListedMarket.row(market: "t" + pair, asset: ourCode[base] ?? base, quote: ourCode[quote] ?? quote)
    }

    /// Decodes a `pub:list:pair:exchange` body; `["error", …]` is `.api`, a list without pairs `.empty`.
    package static func decode(_ body: Data, exchange: ExchangeID) throws(SourceError) -> [ListedMarket] {
        if let error = BitfinexTickerSource.apiError(in: body) { throw error }
        let lists = try ExchangeJSON.decode([[String]].self, from: body, source: exchange.rawValue)
        guard let pairs = lists.first else {
            throw SourceError(source: exchange.rawValue, kind: .empty, message: "\(path) answered no list")
        }
        let markets = pairs.compactMap(market)
        guard !markets.isEmpty else { throw MarketListSources.emptyError(exchange, path: path) }
        return markets
    }
}
