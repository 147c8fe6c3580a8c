import Foundation
import MarketAlertCore
import MarketAlertIO

/// Times the exchange sources' own `decode` on full-size bulk bodies, for the 50 watched `<ASSET>USDT` pairs.
struct DecodeBenchmark {
    struct Result {
        var name: String
        var rows: Int
        var bytes: Int
        var samples: Samples
    }

    let list: BinanceBulkList
    let markets: BenchMarkets

    /// Binance (the budgeted one), then Bybit and OKX lists of the same size in their own shapes, for information.
    func run(iterations: Int) throws -> [Result] {
        let watched = markets.usdtPairs
        let receivedAt = Date()
        let binance = list.body
        try verify(try BinanceTickerSource.decode(binance, watched: watched, receivedAt: receivedAt), market: { "\($0)USDT" }, exchange: "binance")

        let rows = list.rows.compactMap { MarketRow(binance: $0.template) }
        let millis = Int64(receivedAt.timeIntervalSince1970 * 1000)
        let bybit = try Self.body(.bybit, rows: rows, millis: millis)
        try verify(try BybitTickerSource.decode(bybit, watched: watched, receivedAt: receivedAt), market: { "\($0)USDT" }, exchange: "bybit")
        let okx = try Self.body(.okx, rows: rows, millis: millis)
        try verify(try OKXTickerSource.decode(okx, watched: watched, receivedAt: receivedAt), market: { "\($0)-USDT" }, exchange: "okx")

        let warmup = max(5, iterations / 10)
        return [
            Result(name: "decode binance /api/v3/ticker/24hr", rows: list.rows.count, bytes: binance.count, samples: try Stopwatch.measure(warmup: warmup, iterations: iterations) {
                Sink.consume(try BinanceTickerSource.decode(binance, watched: watched, receivedAt: receivedAt).count)
            }),
            Result(name: "decode bybit /v5/market/tickers", rows: rows.count, bytes: bybit.count, samples: try Stopwatch.measure(warmup: warmup, iterations: iterations) {
                Sink.consume(try BybitTickerSource.decode(bybit, watched: watched, receivedAt: receivedAt).count)
            }),
            Result(name: "decode okx /api/v5/market/tickers", rows: rows.count, bytes: okx.count, samples: try Stopwatch.measure(warmup: warmup, iterations: iterations) {
                Sink.consume(try OKXTickerSource.decode(okx, watched: watched, receivedAt: receivedAt).count)
            }),
        ]
    }

    struct WrongResult: Error, CustomStringConvertible {
        var description: String
    }

    /// A ticker answer of `rows` in `exchange`'s recorded shape (its wire kit).
    private static func body(_ exchange: ExchangeID, rows: [MarketRow], millis: Int64) throws -> Data {
        guard let rest = ExchangeRegistry.standard[exchange]?.wire.rest else { throw WrongResult(description: "\(exchange): not in the registry") }
        return Data(rest.body(rows, millis).utf8)
    }

    /// The decode must find every watched market with its recorded last price, exactly; otherwise the timing
    /// would be of some other work.
    private func verify(_ quotes: [Quote], market: (String) -> String, exchange: String) throws {
        guard quotes.count == markets.assets.count else {
            throw WrongResult(description: "\(exchange): decoded \(quotes.count) quotes, expected \(markets.assets.count)")
        }
        for asset in markets.assets {
            guard let quote = quotes.first(where: { $0.market == market(asset) }) else {
                throw WrongResult(description: "\(exchange): no quote for \(market(asset))")
            }
            guard let text = markets.lastPriceText[asset], let expected = Decimal(string: text), quote.last?.exact == expected else {
                throw WrongResult(description: "\(exchange): \(market(asset)) last \(quote.last?.description ?? "nil"), expected \(markets.lastPriceText[asset] ?? "?")")
            }
        }
    }
}
