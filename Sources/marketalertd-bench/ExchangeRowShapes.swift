import Foundation

/// The recorded row (and envelope) shape of each exchange's ticker answer, filled from `MarketRow`s.
/// Members not named here keep their recorded values.
struct ExchangeRowShapes: Sendable {
    let binance: FlatJSONTemplate
    let bybit: ListEnvelope
    let okx: ListEnvelope
    let bitget: ListEnvelope
    let upbit: FlatJSONTemplate
    let bithumb: FlatJSONTemplate
    let coinbase: FlatJSONTemplate
    let dunamu: FlatJSONTemplate

    init(fixtures: FixtureFiles, binanceList: BinanceBulkList) throws {
        guard let btc = binanceList.row("BTCUSDT") else { throw FixtureFiles.Missing(description: "no BTCUSDT row in \(BinanceBulkList.fixture)") }
        binance = btc.template
        bybit = try ListEnvelope(fixtures: fixtures, path: "bybit/tickers-spot.json", listKey: "list")
        okx = try ListEnvelope(fixtures: fixtures, path: "okx/market-tickers-SPOT-ccxtsrc.json", listKey: "data")
        bitget = try ListEnvelope(fixtures: fixtures, path: "bitget/spot-market-tickers-BTCUSDT-ccxtsrc.json", listKey: "data")
        upbit = try fixtures.firstRow("upbit/ticker-KRW-BTC-ETH.json")
        let bithumbText = try fixtures.string("bithumb/public-ticker-ALL_KRW-trimmed-20221005.json")
        guard let coin = bithumbText.range(of: "\"BTC\":"), let end = bithumbText[coin.upperBound...].firstIndex(of: "}") else {
            throw FixtureFiles.Missing(description: "bithumb ALL_KRW fixture: no BTC entry")
        }
        bithumb = try FlatJSONTemplate(String(bithumbText[coin.upperBound...end]))
        coinbase = try FlatJSONTemplate(fixtures.string("coinbase/products-BTC-USDT-ticker-ccxt.json"))
        dunamu = try fixtures.firstRow("dunamu/forex-recent-KRWUSD-20210813.json")
    }

    func binanceRow(_ m: MarketRow) -> String {
        binance.render([
            "symbol": (m.base + m.quote).quoted, "lastPrice": m.last.quoted, "bidPrice": m.bid.quoted, "askPrice": m.ask.quoted,
            "openPrice": m.open.quoted, "highPrice": m.high.quoted, "lowPrice": m.low.quoted, "prevClosePrice": m.open.quoted,
            "volume": m.volume.quoted, "quoteVolume": m.quoteVolume.quoted,
            "openTime": String(m.timeMillis - 86_400_000), "closeTime": String(m.timeMillis),
        ])
    }

    func bybitRow(_ m: MarketRow) -> String {
        let t = DecimalFormat.trimmed
        return bybit.row.render([
            "symbol": (m.base + m.quote).quoted, "bid1Price": t(m.bid).quoted, "bid1Size": t(m.bidQty).quoted,
            "ask1Price": t(m.ask).quoted, "ask1Size": t(m.askQty).quoted, "lastPrice": t(m.last).quoted,
            "prevPrice24h": t(m.open).quoted, "highPrice24h": t(m.high).quoted, "lowPrice24h": t(m.low).quoted,
            "turnover24h": t(m.quoteVolume).quoted, "volume24h": t(m.volume).quoted, "usdIndexPrice": t(m.last).quoted,
        ])
    }

    func okxRow(_ m: MarketRow) -> String {
        let t = DecimalFormat.trimmed
        return okx.row.render([
            "instId": "\(m.base)-\(m.quote)".quoted, "last": t(m.last).quoted, "lastSz": t(m.lastQty).quoted,
            "askPx": t(m.ask).quoted, "askSz": t(m.askQty).quoted, "bidPx": t(m.bid).quoted, "bidSz": t(m.bidQty).quoted,
            "open24h": t(m.open).quoted, "high24h": t(m.high).quoted, "low24h": t(m.low).quoted,
            "volCcy24h": t(m.quoteVolume).quoted, "vol24h": t(m.volume).quoted, "ts": String(m.timeMillis).quoted,
            "sodUtc0": t(m.open).quoted, "sodUtc8": t(m.open).quoted,
        ])
    }

    func bitgetRow(_ m: MarketRow) -> String {
        let t = DecimalFormat.trimmed
        return bitget.row.render([
            "open": t(m.open).quoted, "symbol": (m.base + m.quote).quoted, "high24h": t(m.high).quoted, "low24h": t(m.low).quoted,
            "lastPr": t(m.last).quoted, "quoteVolume": t(m.quoteVolume).quoted, "baseVolume": t(m.volume).quoted,
            "usdtVolume": t(m.quoteVolume).quoted, "ts": String(m.timeMillis).quoted, "bidPr": t(m.bid).quoted,
            "askPr": t(m.ask).quoted, "bidSz": t(m.bidQty).quoted, "askSz": t(m.askQty).quoted, "openUtc": t(m.open).quoted,
        ])
    }

    /// Upbit sends JSON numbers with eight decimals (`163248000.00000000`).
    func upbitRow(_ m: MarketRow) -> String {
        upbit.render([
            "market": "\(m.quote)-\(m.base)".quoted, "trade_timestamp": String(m.timeMillis), "timestamp": String(m.timeMillis),
            "opening_price": m.open, "high_price": m.high, "low_price": m.low, "trade_price": m.last, "prev_closing_price": m.open,
            "acc_trade_volume_24h": m.volume, "acc_trade_price_24h": m.quoteVolume,
        ])
    }

    /// One coin of Bithumb's `ALL_<quote>` map (no bid or ask; strings without decimals for KRW).
    func bithumbTicker(_ m: MarketRow) -> String {
        let t = DecimalFormat.trimmed
        return bithumb.render([
            "opening_price": t(m.open).quoted, "closing_price": t(m.last).quoted, "min_price": t(m.low).quoted,
            "max_price": t(m.high).quoted, "units_traded_24H": t(m.volume).quoted, "acc_trade_value_24H": t(m.quoteVolume).quoted,
            "prev_closing_price": t(m.open).quoted,
        ])
    }

    /// Kraken's arrays: `a` = [ask, whole-lot volume, lot volume], `b` likewise, `c` = [last, lot volume]; prices
    /// are strings with the pair's own number of decimals.
    func krakenTicker(_ m: MarketRow) -> String {
        let t = { (text: String) in text.quoted }
        return "{\"a\":[\(t(m.ask)),\"1\",\"1.000\"],\"b\":[\(t(m.bid)),\"2\",\"2.000\"],\"c\":[\(t(m.last)),\(t(m.lastQty))],"
            + "\"v\":[\(t(m.volume)),\(t(m.volume))],\"p\":[\(t(m.last)),\(t(m.last))],\"t\":[25646,28278],"
            + "\"l\":[\(t(m.low)),\(t(m.low))],\"h\":[\(t(m.high)),\(t(m.high))],\"o\":\(t(m.open))}"
    }

    /// Coinbase's `/products/{id}/ticker`; `time` is ISO 8601 with microseconds.
    func coinbaseTicker(_ m: MarketRow) -> String {
        let t = DecimalFormat.trimmed
        let date = Date(timeIntervalSince1970: Double(m.timeMillis) / 1000)
        let time = date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)).replacingOccurrences(of: "Z", with: "000Z")
        return coinbase.render([
            "ask": t(m.ask).quoted, "bid": t(m.bid).quoted, "volume": t(m.volume).quoted, "price": t(m.last).quoted,
            "size": t(m.lastQty).quoted, "time": time.quoted,
        ])
    }
}

/// A recorded envelope whose list holds one row: the text before the list's first element, that element as a
/// template, and the text after it (`]},"retExtInfo":{},"time":…}`).
struct ListEnvelope: Sendable {
    let prefix: String
    let row: FlatJSONTemplate
    let suffix: String

    init(fixtures: FixtureFiles, path: String, listKey: String) throws {
        let text = try fixtures.string(path).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let list = text.range(of: "\"\(listKey)\":["), let end = text[list.upperBound...].firstIndex(of: "}") else {
            throw FixtureFiles.Missing(description: "\(path): no \(listKey) list")
        }
        prefix = String(text[..<list.upperBound])
        row = try FlatJSONTemplate(String(text[list.upperBound...end]))
        suffix = String(text[text.index(after: end)...])
        guard suffix.hasPrefix("]") else { throw FixtureFiles.Missing(description: "\(path): the \(listKey) list has more than one row") }
    }

    /// The envelope around `rows`, with top-level number members (`time`, `requestTime`) replaced.
    func body(rows: [String], numbers: [String: Int64] = [:]) -> String {
        var head = prefix
        var tail = suffix
        for (key, value) in numbers {
            head = Self.replacingNumber(key, with: value, in: head)
            tail = Self.replacingNumber(key, with: value, in: tail)
        }
        return head + rows.joined(separator: ",") + tail
    }

    private static func replacingNumber(_ key: String, with value: Int64, in text: String) -> String {
        guard let member = text.range(of: "\"\(key)\":") else { return text }
        let end = text[member.upperBound...].firstIndex { $0 == "," || $0 == "}" } ?? text.endIndex
        return text.replacingCharacters(in: member.upperBound..<end, with: String(value))
    }
}
