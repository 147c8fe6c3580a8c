import Foundation
import MarketAlertCore
import MarketAlertIO
import MarketAlertTestSupport
import Testing

/// Every recorded exchange body in `Tests/Fixtures`, decoded by our decoders and compared with ccxt's
/// independent parse (`*.expected.json`), or, for error bodies, checked for the right `SourceError`.
@Suite struct ExchangeFixtureTests {
    static let receivedAt = Date(timeIntervalSince1970: 1_800_000_000)

    /// A recorded body with a ccxt oracle next to it.
    struct OracleCase: Sendable, CustomTestStringConvertible {
        var fixture: String
        var exchange: ExchangeID
        /// ccxt symbol → the watched pair, where ccxt's symbol is a raw id or wrong (see PROVENANCE.md).
        var pairOverrides: [String: MarketPair] = [:]
        /// Our exchange time in ms where ccxt reports none (Bybit: the envelope `time`, which ccxt ignores).
        var timeWhereOracleHasNone: Int64?
        /// Our best bid and ask where ccxt's parse reports none (Coinone: ccxt reads `best_bids` as an object,
        /// the body has a list).
        var bookWhereOracleHasNone: (bid: String, ask: String)?
        var testDescription: String { fixture }
    }

    static let oracleCases: [OracleCase] = [
        OracleCase(fixture: "binance/ticker-24hr-BTCUSDT-ccxt.json", exchange: .binance),
        OracleCase(fixture: "binance/ticker-24hr-all-20240310.json", exchange: .binance),
        OracleCase(fixture: "binance/ticker-price-all-20230112.json", exchange: .binance),
        OracleCase(fixture: "bybit/tickers-spot.json", exchange: .bybit, timeWhereOracleHasNone: 1_673_859_087_947),
        OracleCase(
            fixture: "bybit/tickers-linear-BTCUSDT-ccxt.json", exchange: .bybit,
            timeWhereOracleHasNone: 1_707_905_549_267),
        OracleCase(
            fixture: "bybit/tickers-inverse-BTCUSD-ccxtsrc.json", exchange: .bybit,
            pairOverrides: ["BTCUSD": MarketPair(base: "BTC", quote: "USD")], timeWhereOracleHasNone: 1_672_376_496_682),
        OracleCase(fixture: "bitget/spot-market-tickers-BTCUSDT-ccxtsrc.json", exchange: .bitget),
        OracleCase(fixture: "okx/market-tickers-SPOT-ccxtsrc.json", exchange: .okx),
        OracleCase(fixture: "upbit/ticker-KRW-BTC-ETH.json", exchange: .upbit),
        // ccxt's fallback says USDT/BTC; the market USDT-BTC is BTC priced in USDT.
        OracleCase(
            fixture: "upbit/ticker-USDT-BTC-ccxt.json", exchange: .upbit,
            pairOverrides: ["USDT/BTC": MarketPair(base: "BTC", quote: "USDT")]),
        OracleCase(fixture: "bithumb/public-ticker-ALL_KRW-trimmed-20221005.json", exchange: .bithumb),
        // v1 codes are QUOTE-BASE: BTC-USDC is USDC priced in BTC.
        OracleCase(
            fixture: "bithumb/v1-ticker-BTC-USDC-ccxtsrc.json", exchange: .bithumb,
            pairOverrides: ["BTC-USDC": MarketPair(base: "USDC", quote: "BTC")]),
        OracleCase(
            fixture: "kraken/ticker.json", exchange: .kraken,
            pairOverrides: ["XETHZUSD": MarketPair(base: "ETH", quote: "USD")]),
        OracleCase(fixture: "coinbase/products-BTC-USDT-ticker-ccxt.json", exchange: .coinbase),
        // HTX rows carry no time; ours is the envelope `ts`, which ccxt's parse of a row does not see.
        OracleCase(fixture: "htx/market-tickers-ccxtsrc.json", exchange: .htx, timeWhereOracleHasNone: 1_639_547_261_293),
        OracleCase(fixture: "bitfinex/tickers-ALL-bothan.json", exchange: .bitfinex),
        OracleCase(
            fixture: "coinone/ticker_new-KRW-ccxtsrc.json", exchange: .coinone,
            bookWhereOracleHasNone: (bid: "50062000.0", ask: "50081000.0")),
        OracleCase(fixture: "gate/spot-tickers-KFC_USDT-ccxtsrc.json", exchange: .gate),
        // KuCoin's rows carry no time; ccxt's fetchTickers gives each the envelope's `time`, as ours.
        OracleCase(fixture: "kucoin/market-allTickers-ccxtsrc.json", exchange: .kucoin),
    ]

    @Test(arguments: oracleCases)
    func decodesLikeTheOracle(_ oracle: OracleCase) throws {
        let expected = try OracleFile.load(oracle.fixture.replacingOccurrences(of: ".json", with: ".expected.json"))
        #expect(expected.count == expected.tickers.count)
        var pairBySymbol: [String: MarketPair] = [:]
        for ticker in expected.tickers { pairBySymbol[ticker.symbol] = oracle.pairOverrides[ticker.symbol] ?? Self.pair(ccxtSymbol: ticker.symbol) }
        let quotes = try Self.decode(oracle.exchange, try Fixtures.data(oracle.fixture), watched: Set(pairBySymbol.values))

        var byPair: [MarketPair: Quote] = [:]
        for quote in quotes {
            #expect(quote.exchange == oracle.exchange)
            #expect(byPair.updateValue(quote, forKey: MarketPair(base: quote.base, quote: quote.quote)) == nil, "one quote per market")
        }
        var withPrice = 0
        for ticker in expected.tickers {
            let pair = try #require(pairBySymbol[ticker.symbol])
            guard ticker.last != nil || ticker.bid != nil || ticker.ask != nil else {
                #expect(byPair[pair] == nil, "\(ticker.symbol) has no usable price and must be dropped")
                continue
            }
            withPrice += 1
            let quote = try #require(byPair[pair], "\(ticker.symbol) missing")
            #expect(quote.last?.exact == ticker.last, "\(ticker.symbol) last")
            #expect(quote.bid?.exact == (ticker.bid ?? oracle.bookWhereOracleHasNone.flatMap { Decimal(string: $0.bid) }), "\(ticker.symbol) bid")
            #expect(quote.ask?.exact == (ticker.ask ?? oracle.bookWhereOracleHasNone.flatMap { Decimal(string: $0.ask) }), "\(ticker.symbol) ask")
            #expect(quote.receivedAt == Self.receivedAt)
            let expectedTime = ticker.timestamp ?? oracle.timeWhereOracleHasNone
            #expect(quote.exchangeTime.map(Self.millis) == expectedTime, "\(ticker.symbol) time")
        }
        #expect(quotes.count == withPrice)
    }

    @Test func binanceSingleTickerKeepsTheExactDecimalText() throws {
        let quotes = try BinanceTickerSource.decode(
            try Fixtures.data("binance/ticker-24hr-BTCUSDT-ccxt.json"),
            watched: [MarketPair(base: "BTC", quote: "USDT")], receivedAt: Self.receivedAt)
        let quote = try #require(quotes.first)
        #expect(quote.market == "BTCUSDT")
        #expect(quote.base == "BTC" && quote.quote == "USDT")
        #expect(quote.last?.exact == Decimal(string: "73369.84"))
        #expect(quote.last?.value == 73369.84)
    }

    @Test func upbitNumbersAreReadExactly() throws {
        let quotes = try UpbitTickerSource.decode(
            try Fixtures.data("upbit/ticker-KRW-BTC-ETH.json"),
            watched: [MarketPair(base: "BTC", quote: "KRW")], receivedAt: Self.receivedAt)
        #expect(quotes.map(\.market) == ["KRW-BTC"])
        #expect(quotes.first?.last?.exact == Decimal(string: "162876000"))
        // The last trade's time, not the snapshot's `timestamp`.
        #expect(quotes.first?.exchangeTime.map(Self.millis) == 1_753_894_995_076)
    }

    @Test func krakenMapsItsOwnPairNamesBackToTheWatchedPairs() throws {
        let quotes = try KrakenTickerSource.decode(
            try Fixtures.data("kraken/ticker.json"),
            watched: [MarketPair(base: "BTC", quote: "USD"), MarketPair(base: "ETH", quote: "USD")], receivedAt: Self.receivedAt)
        #expect(quotes.map(\.market) == ["XETHZUSD", "XXBTZUSD"])
        #expect(quotes.map(\.base) == ["ETH", "BTC"])
        #expect(quotes.allSatisfy { $0.exchangeTime == nil && $0.at == Self.receivedAt })
    }

    @Test func coinbaseTimeKeepsMicroseconds() throws {
        let quote = try CoinbaseTickerSource.decode(
            try Fixtures.data("coinbase/products-BTC-USDT-ticker-ccxt.json"),
            product: MarketPair(base: "BTC", quote: "USDT"), receivedAt: Self.receivedAt)
        #expect(quote.market == "BTC-USDT")
        let time = try #require(quote.exchangeTime)
        #expect(abs(time.timeIntervalSince1970 - 1_710_328_241.270_099) < 0.000_002)
    }

    /// Error bodies recorded from the real APIs.
    struct ErrorCase: Sendable, CustomTestStringConvertible {
        var fixture: String
        var exchange: ExchangeID
        var kind: SourceError.Kind
        var messageContains: String
        var testDescription: String { fixture }
    }

    static let errorCases: [ErrorCase] = [
        ErrorCase(fixture: "binance/error-1121-invalid-symbol-ccxtsrc.json", exchange: .binance, kind: .api, messageContains: "Invalid symbol."),
        ErrorCase(fixture: "bybit/error-5004-server-timeout-ccxtsrc.json", exchange: .bybit, kind: .api, messageContains: "retCode 5004: Server Timeout"),
        ErrorCase(fixture: "bitget/error-41114-maintenance-ccxtsrc.json", exchange: .bitget, kind: .api, messageContains: "code 41114"),
        ErrorCase(fixture: "bithumb/error-5100-ccxtsrc.json", exchange: .bithumb, kind: .api, messageContains: "status 5100"),
        ErrorCase(fixture: "gate/error-INVALID_PARAM_VALUE-ccxtsrc.json", exchange: .gate, kind: .api, messageContains: "INVALID_PARAM_VALUE: Candlestick"),
        ErrorCase(fixture: "kucoin/error-404-ccxtsrc.json", exchange: .kucoin, kind: .api, messageContains: "code 404: Not Found"),
        // The single-market form is not what the source asks for, and it does not say which market it is.
        ErrorCase(fixture: "bithumb/public-ticker-single-ccxtsrc.json", exchange: .bithumb, kind: .decode, messageContains: "single-market"),
    ]

    @Test(arguments: errorCases)
    func errorBodies(_ errorCase: ErrorCase) throws {
        let watched: Set<MarketPair> = [MarketPair(base: "BTC", quote: errorCase.exchange == .bithumb ? "KRW" : "USDT")]
        let body = try Fixtures.data(errorCase.fixture)
        let error = try #require(sourceError { () throws(SourceError) in try Self.decode(errorCase.exchange, body, watched: watched) })
        #expect(error.kind == errorCase.kind)
        #expect(error.source == errorCase.exchange.rawValue)
        #expect(error.message.contains(errorCase.messageContains), "\(error.message)")
    }

    /// v3 bodies that are not tickers, each decoded by its own suite (transfer status, market lists).
    static let decodedElsewhere: [String: String] = [
        "upbit/status-wallet-docs.json": "TransferStatusFixtureTests",
        "kucoin/v3-currencies-CSP-ccxtsrc.json": "TransferStatusFixtureTests",
        "kraken/public-Assets-ccxtsrc.json": "TransferStatusFixtureTests",
        "htx/v2-reference-currencies-sxp-ccxtsrc.json": "TransferStatusFixtureTests",
        "gate/spot-currencies-USDT-ccxtsrc.json": "TransferStatusFixtureTests",
        "coinone/v2-currencies-MATIC-ccxtsrc.json": "TransferStatusFixtureTests",
        "coinbase/currencies-USDT-ccxtsrc.json": "TransferStatusFixtureTests",
        "bitget/v2-spot-public-coins-NEIROETH-ccxtsrc.json": "TransferStatusFixtureTests",
        "binance/capital-config-getall-BAT-ccxtsrc.json": "TransferStatusFixtureTests",
        "okx/asset-currencies-USDT-ccxtsrc.json": "TransferStatusFixtureTests",
        "okx/error-50103-ccxtsrc.json": "OKXBybitTransferStatusTests",
        "bybit/asset-coin-query-info-BTC-ccxtsrc.json": "TransferStatusFixtureTests",
        "bitfinex/conf-tx-method-status-bitfinexnet.json": "BitfinexTransferStatusTests",
        "bithumb/assetsstatus-multichain-ALL-docshape.json": "BithumbTransferStatusTests",
        "upbit/market-all-row-coincenter.json": "MarketListDecodeTests",
        "binance/exchangeInfo-20180312-gobinance.json": "MarketListDecodeTests",
        "okx/public-instruments-SPOT-ccxtsrc.json": "MarketListDecodeTests",
        "bybit/market-instruments-info-spot-ccxtsrc.json": "MarketListDecodeTests",
        "bitget/spot-public-symbols-ccxtsrc.json": "MarketListDecodeTests",
        "kraken/public-AssetPairs-ccxtsrc.json": "MarketListDecodeTests",
        "coinbase/products-ccxtsrc.json": "MarketListDecodeTests",
        "gate/spot-currency_pairs-ccxtsrc.json": "MarketListDecodeTests",
        "kucoin/v2-symbols-ccxtsrc.json": "MarketListDecodeTests",
        "htx/v2-settings-common-symbols-docshape.json": "MarketListDecodeTests",
        "bitfinex/conf-pub-list-pair-exchange-docshape.json": "MarketListDecodeTests",
    ]

    /// A new fixture must get a case above, or an entry in `decodedElsewhere` naming the suite that decodes it.
    @Test func everyExchangeFixtureIsCovered() throws {
        let covered = Set(Self.oracleCases.map(\.fixture) + Self.errorCases.map(\.fixture) + Self.decodedElsewhere.keys)
        for exchange in ExchangeRegistry.standard.ids {
            let directory = Fixtures.url(exchange.rawValue)
            let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            for file in files where file.hasSuffix(".json") && !file.hasSuffix(".expected.json") {
                #expect(covered.contains("\(exchange.rawValue)/\(file)"), "fixture \(exchange.rawValue)/\(file) has no test")
            }
        }
    }

    // MARK: Helpers

    static func decode(_ exchange: ExchangeID, _ body: Data, watched: Set<MarketPair>) throws(SourceError) -> [Quote] {
        guard let descriptor = ExchangeRegistry.standard[exchange] else {
            throw SourceError(source: exchange.rawValue, kind: .decode, message: "not in the registry")
        }
        return try descriptor.decodeTickers(body, watched, receivedAt)
    }

    /// `BTC/USDT` and `BTC/USDT:USDT` → BTC/USDT. A raw id (ccxt's fallback for markets outside its subset,
    /// e.g. Binance `ETHBTC`) becomes a pair whose base is the whole id and whose quote is empty: the
    /// concatenating exchanges then build exactly that id from it.
    static func pair(ccxtSymbol: String) -> MarketPair {
        let unsettled = ccxtSymbol.split(separator: ":").first.map(String.init) ?? ccxtSymbol
        let parts = unsettled.split(separator: "/")
        guard parts.count == 2 else { return MarketPair(base: ccxtSymbol, quote: "") }
        return MarketPair(base: String(parts[0]), quote: String(parts[1]))
    }

    static func millis(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
}

/// `*.expected.json`: ccxt's parse of the body next to it.
struct OracleFile: Decodable {
    var count: Int
    var tickers: [Ticker]

    struct Ticker: Decodable {
        var symbol: String
        var bid: Decimal?
        var ask: Decimal?
        var last: Decimal?
        var timestamp: Int64?
    }

    static func load(_ path: String) throws -> OracleFile {
        try JSONDecoder().decode(OracleFile.self, from: try Fixtures.data(path))
    }
}

/// The `SourceError` an operation throws, or `nil` if it succeeds.
func sourceError<T>(_ operation: () throws(SourceError) -> T) -> SourceError? {
    do {
        _ = try operation()
        return nil
    } catch {
        return error
    }
}

func sourceError<T>(_ operation: () async throws(SourceError) -> T) async -> SourceError? {
    do {
        _ = try await operation()
        return nil
    } catch {
        return error
    }
}
