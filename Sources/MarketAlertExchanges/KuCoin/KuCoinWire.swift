import Foundation
import MarketAlertCore

/// KuCoin as a peer: `/api/v1/market/allTickers` (always every pair), the bullet answer that sends a client
/// to a WebSocket server, `/market/ticker` messages, and its stream server's answers: `ack` or `error` per
/// subscribe request, `pong` for `ping`.
package enum KuCoinWire {
    package static let kit = ExchangeWireKit(
        homeQuote: "USDT", recordedQuote: "USDT",
        rest: RESTPeer(
            paths: [KuCoinTickerSource.path, KuCoinMarketList.path],
            shapes: [
                RecordedShape(fixture: "kucoin/market-allTickers-ccxtsrc.json", text: envelope.recorded),
                RecordedShape(fixture: "kucoin/v2-symbols-ccxtsrc.json", text: symbols.recorded),
            ],
            body: body,
            answer: { request, book in
                let rows = { book.live().map(\.row) + book.others }
                switch request.path {
                case KuCoinTickerSource.path: return .json(body(rows(), request.nowMillis))
                case KuCoinMarketList.path: return .json(symbols.body(rows: rows().map(symbol)))
                default: return nil
                }
            },
            startsPoll: { request, _ in
                request.path == KuCoinTickerSource.path ? true : request.path == KuCoinMarketList.path ? false : nil
            }),
        stream: StreamPeer(path: "/", tickerFrame: frame, persona: persona),
        fixtures: WireFixtures(rest: "kucoin", stream: "streams/kucoin"))

    /// `kucoin/market-allTickers-ccxtsrc.json`.
    static let envelope = ListEnvelope(
        constant: #"{"code":"200000","data":{"time":1602832092060,"ticker":[{"symbol":"BTC-USDT","symbolName":"BTC-USDT","buy":"11328.9","sell":"11329","changeRate":"-0.0055","changePrice":"-63.6","high":"11610","low":"11200","vol":"2282.70993217","volValue":"25984946.157790431","last":"11328.9","averagePrice":"11360.66065903","takerFeeRate":"0.001","makerFeeRate":"0.001","takerCoefficient":"1","makerCoefficient":"1"}]}}"#,
        listKey: "ticker")

    /// `kucoin/v2-symbols-ccxtsrc.json`: the market list (`KuCoinMarketList`) lists every market of the book,
    /// trading enabled.
    static let symbols = ListEnvelope(
        constant: #"{"code":"200000","data":[{"symbol":"XLM-USDT","name":"XLM-USDT","baseCurrency":"XLM","quoteCurrency":"USDT","feeCurrency":"USDT","market":"USDS","baseMinSize":"0.1","quoteMinSize":"0.01","baseMaxSize":"10000000000","quoteMaxSize":"99999999","baseIncrement":"0.0001","quoteIncrement":"0.000001","priceIncrement":"0.000001","priceLimitRate":"0.1","isMarginEnabled":true,"enableTrading":true}]}"#,
        listKey: "data")

    static func symbol(_ m: WireRow) -> String {
        let symbol = "\(m.base)-\(m.quote)"
        return symbols.row.render([
            "symbol": symbol.quoted, "name": symbol.quoted, "baseCurrency": m.base.quoted, "quoteCurrency": m.quote.quoted,
            "feeCurrency": m.quote.quoted,
        ])
    }

    static func body(_ rows: [WireRow], _ millis: Int64) -> String {
        envelope.body(rows: rows.map(row), numbers: ["time": millis])
    }

    static func row(_ m: WireRow) -> String {
        let t = DecimalFormat.trimmed
        let symbol = "\(m.base)-\(m.quote)"
        return envelope.row.render([
            "symbol": symbol.quoted, "symbolName": symbol.quoted, "buy": t(m.bid).quoted, "sell": t(m.ask).quoted,
            "high": t(m.high).quoted, "low": t(m.low).quoted, "vol": t(m.volume).quoted, "volValue": t(m.quoteVolume).quoted,
            "last": t(m.last).quoted, "averagePrice": t(m.last).quoted,
        ])
    }

    /// The bullet answer (the shape of KuCoin's docs, as ccxt's `pro/kucoin.py` shows it) sending clients to
    /// `endpoint` with `token`.
    package static func bullet(endpoint: String, token: String) -> String {
        #"{"code":"200000","data":{"token":"\#(token)","instanceServers":[{"endpoint":"\#(endpoint)","encrypt":true,"protocol":"websocket","pingInterval":18000,"pingTimeout":10000}]}}"#
    }

    /// A `/market/ticker` message in the recorded shape (`streams/kucoin/ticker-…-cryptofeed.jsonl`).
    static func frame(_ row: WireRow, _ symbol: String, _ sequence: Int, _ millis: Int64) -> String {
        let t = DecimalFormat.trimmed
        return #"{"data":{"sequence":"\#(1_613_277_183_000 + sequence)","bestAsk":"\#(t(row.ask))","size":"\#(t(row.lastQty))","bestBidSize":"\#(t(row.bidQty))","price":"\#(t(row.last))","time":\#(millis),"bestAskSize":"\#(t(row.askQty))","bestBid":"\#(t(row.bid))"},"subject":"trade.ticker","topic":"/market/ticker:\#(symbol)","type":"message"}"#
    }

    /// `{"id","type":"subscribe","topic":"/market/ticker:A,B","privateChannel":false,"response":true}` (or
    /// `/market/level2:A,B`; at most 100 pairs) → `{"id","type":"ack"}`, or an `error` for the whole request; `{"id","type":"ping"}` →
    /// `{"id","type":"pong"}`.
    static func persona(_ text: String, _ knobs: PersonaKnobs) -> [WireReply] {
        guard let request = WireJSON.object(text), let type = request["type"] as? String else {
            return [.text(#"{"type":"error","code":400,"data":"request is not json"}"#)]
        }
        let id = request["id"].map { "\($0)" } ?? ""
        func error(_ code: Int, _ data: String) -> WireReply { .text("{\"id\":\"\(id)\",\"type\":\"error\",\"code\":\(code),\"data\":\"\(data)\"}") }
        if type == "ping" {
            return knobs.answerPings ? [.text("{\"id\":\"\(id)\",\"type\":\"pong\",\"timestamp\":1619378326134871}")] : []
        }
        guard type == "subscribe", let topic = request["topic"] as? String,
              let prefix = ["/market/ticker:", "/market/level2:"].first(where: topic.hasPrefix), request["response"] as? Bool == true
        else { return [error(415, "type is not supported")] }
        let pairs = topic.dropFirst(prefix.count).split(separator: ",").map(String.init)
        guard !pairs.isEmpty else { return [error(400, "topic is empty")] }
        guard pairs.count <= 100 else { return [error(509, "exceed max subscription count limitation of 100 per time")] }
        guard pairs.allSatisfy({ WireJSON.matches($0, #"^[A-Z0-9]+-[A-Z0-9]+$"#) }) else { return [error(400, "topic format is invalid")] }
        if let unknown = pairs.first(where: knobs.refused.contains) {
            return [error(404, "topic \(prefix)\(unknown) is not found")]
        }
        switch knobs.mode {
        case .ack, .partial: return [.text("{\"id\":\"\(id)\",\"type\":\"ack\"}")]
        case .reject: return [error(401, "token is expired")]
        case .silent: return []
        }
    }
}
