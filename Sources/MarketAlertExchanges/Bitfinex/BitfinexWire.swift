import Foundation
import MarketAlertCore

/// Bitfinex as a peer: `/v2/tickers?symbols=ALL` (arrays of arrays, every listed pair), `ticker` channel
/// frames under the channel number its `subscribed` answer gave (a number derived from the symbol, so a
/// feeder's frames and the persona's answers agree), and refusals that echo the request.
package enum BitfinexWire {
    package static let kit = ExchangeWireKit(
        homeQuote: "USDT", recordedQuote: "USD",
        rest: RESTPeer(
            paths: [path, BitfinexMarketList.path], shapes: [RecordedShape(fixture: "bitfinex/tickers-ALL-bothan.json", text: recordedRow)],
            body: { rows, _ in "[" + rows.map(row).joined(separator: ",") + "]" },
            answer: { request, book in
                let rows = { book.live().map(\.row) + book.others }
                if request.path == BitfinexMarketList.path { return .json(pairList(rows())) }
                guard request.path == path else { return nil }
                guard request.queryValue("symbols") == "ALL" else { return .json(#"["error",10020,"symbols: invalid"]"#, status: 500) }
                return .json("[" + rows().map(row).joined(separator: ",") + "]")
            },
            startsPoll: { request, _ in request.path == path ? true : request.path == BitfinexMarketList.path ? false : nil }),
        stream: StreamPeer(path: "/ws/2", tickerFrame: frame, persona: persona),
        fixtures: WireFixtures(rest: "bitfinex", stream: "streams/bitfinex"))

    static let path = "/v2/tickers"

    /// `pub:list:pair:exchange` (`BitfinexMarketList`, the documented shape: one list of pair names in a list):
    /// every market of the book, named as the ticker symbol without its `t` (`BTCUST`, `AVAX:USD`).
    static func pairList(_ rows: [WireRow]) -> String {
        let names = rows.map { "\"" + BitfinexTickerSource.symbol(MarketPair(base: $0.base, quote: $0.quote)).dropFirst() + "\"" }
        return "[[" + names.joined(separator: ",") + "]]"
    }

    /// The `tBTCUSD` row of `bitfinex/tickers-ALL-bothan.json`.
    static let recordedRow = #"["tBTCUSD",101530,39.76548266,101540,32.24226311,2680,0.0271063,101550,661.88869229,102760,98740]"#

    /// `[SYMBOL,BID,BID_SIZE,ASK,ASK_SIZE,DAILY_CHANGE,DAILY_CHANGE_RELATIVE,LAST_PRICE,VOLUME,HIGH,LOW]`, JSON numbers.
    static func row(_ m: WireRow) -> String {
        "[\"\(BitfinexTickerSource.symbol(m.pair))\",\(values(m))]"
    }

    static func values(_ m: WireRow) -> String {
        "\(m.bid),\(m.bidQty),\(m.ask),\(m.askQty),0,0,\(m.last),\(m.volume),\(m.high),\(m.low)"
    }

    /// The channel number the persona gives `symbol`: FNV-1a of its bytes, in Bitfinex's range of numbers.
    package static func channel(_ symbol: String) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in symbol.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return 100_000 + Int(hash % 900_000)
    }

    /// The number the persona gives `symbol`'s `book` channel (another than its ticker's).
    package static func bookChannel(_ symbol: String) -> Int { channel("book:" + symbol) }

    static func frame(_ row: WireRow, _ symbol: String, _ sequence: Int, _ millis: Int64) -> String {
        "[\(channel(symbol)),[\(values(row))]]"
    }

    /// `{"event":"subscribe","channel":"ticker","symbol":"tBTCUST"}` → `{"event":"subscribed",…,"chanId":N}`, and
    /// for `book` (P0) the same with its `prec`, `freq` and `len` echoed; `conf` → `{"event":"conf","status":"OK",
    /// "flags":…}`; `unsubscribe` → `unsubscribed`; a refused (or, rejecting, every) symbol → the `symbol: invalid`
    /// error echoing the request.
    static func persona(_ text: String, _ knobs: PersonaKnobs) -> [WireReply] {
        guard let request = WireJSON.object(text), let event = request["event"] as? String else {
            return [.text(#"{"event":"error","msg":"Invalid JSON","code":10000}"#)]
        }
        if event == "ping" {
            return knobs.answerPings ? [.text("{\"event\":\"pong\",\"ts\":1618677543951,\"cid\":\(request["cid"] as? Int ?? 0)}")] : []
        }
        if event == "conf" { return [.text("{\"event\":\"conf\",\"status\":\"OK\",\"flags\":\(request["flags"] as? Int ?? 0)}")] }
        if event == "unsubscribe" {
            return [.text("{\"event\":\"unsubscribed\",\"status\":\"OK\",\"chanId\":\(request["chanId"] as? Int ?? 0)}")]
        }
        let name = request["channel"] as? String ?? ""
        guard event == "subscribe", name == "ticker" || name == "book", let symbol = request["symbol"] as? String,
              WireJSON.matches(symbol, #"^t[A-Z0-9]+(:[A-Z0-9]+)?$"#)
        else { return [.text(#"{"event":"error","msg":"Invalid subscription","code":10300}"#)] }
        let pair = String(symbol.dropFirst())
        let refusal = WireReply.text(#"{"channel":"\#(name)","symbol":"\#(symbol)","event":"error","msg":"symbol: invalid","code":10300,"pair":"\#(pair)"}"#)
        if knobs.refused.contains(symbol) { return [refusal] }
        switch knobs.mode {
        case .ack, .partial:
            guard name == "book" else {
                return [.text(#"{"event":"subscribed","channel":"ticker","chanId":\#(channel(symbol)),"symbol":"\#(symbol)","pair":"\#(pair)"}"#)]
            }
            let prec = request["prec"] as? String ?? "P0"
            let freq = request["freq"] as? String ?? "F0"
            let len = request["len"] as? String ?? "25"
            return [.text(#"{"event":"subscribed","channel":"book","chanId":\#(bookChannel(symbol)),"symbol":"\#(symbol)","prec":"\#(prec)","freq":"\#(freq)","len":"\#(len)","pair":"\#(pair)"}"#)]
        case .reject: return [refusal]
        case .silent: return []
        }
    }
}
