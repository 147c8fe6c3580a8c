import Foundation
import MarketAlertCore

/// Kraken as a peer: `/0/public/Ticker?pair=…` (only the pairs asked for, under the names asked;
/// `EQuery:Unknown asset pair` when one is unknown; every listed pair without `pair=`), v2 `ticker`
/// updates and one `subscribe` result per symbol.
package enum KrakenWire {
    package static let kit = ExchangeWireKit(
        homeQuote: "USDT", recordedQuote: "USD",
        rest: RESTPeer(
            paths: [path, assetPairsPath], shapes: [RecordedShape(fixture: "kraken/public-AssetPairs-ccxtsrc.json", text: recordedPair)],
            body: { rows, _ in body(rows.map { (KrakenPairNames.requestName($0.pair), $0) }) },
            answer: { request, book in
                if request.path == assetPairsPath { return .json(assetPairs((book.live().map(\.row) + book.others).map(\.pair))) }
                guard request.path == path else { return nil }
                let names = request.listValue("pair")
                // Without `pair`, Kraken answers every pair it lists (what the source reads after a refusal).
                if names.isEmpty {
                    return .json(body((book.live().map(\.row) + book.others).map { (KrakenPairNames.requestName($0.pair), $0) }))
                }
                let rows = names.compactMap { name in book.row(name).map { (name, $0) } }
                guard !names.isEmpty, rows.count == names.count else { return .json(#"{"error":["EQuery:Unknown asset pair"]}"#) }
                return .json(body(rows))
            },
            startsPoll: { request, _ in request.path == path ? true : request.path == assetPairsPath ? false : nil }),
        stream: StreamPeer(path: "/v2", tickerFrame: frame, persona: persona),
        fixtures: WireFixtures(rest: "kraken", stream: "streams/kraken"))

    /// The market list (`KrakenMarketList`): every listed pair under the name its tickers answer under, with
    /// the `wsname` in Kraken's codes (`XBT/USD`) and `status` `online`.
    static let assetPairsPath = "/0/public/AssetPairs"

    /// `kraken/public-AssetPairs-ccxtsrc.json`.
    static let recordedPair = #"{"error":[],"result":{"ADAETH":{"altname":"ADAETH","wsname":"ADA/ETH","aclass_base":"currency","base":"ADA","aclass_quote":"currency","quote":"XETH","lot":"unit","pair_decimals":7,"lot_decimals":8,"lot_multiplier":1,"leverage_buy":[],"leverage_sell":[],"fees":[[0,0.26],[50000,0.24],[100000,0.22],[250000,0.2],[500000,0.18],[1000000,0.16],[2500000,0.14],[5000000,0.12],[10000000,0.1]],"fees_maker":[[0,0.16],[50000,0.14],[100000,0.12],[250000,0.1],[500000,0.08],[1000000,0.06],[2500000,0.04],[5000000,0.02],[10000000,0]],"fee_volume_currency":"ZUSD","margin_call":80,"margin_stop":40,"ordermin":"1"}}}"#

    static func assetPairs(_ pairs: [MarketPair]) -> String {
        let rows = pairs.map { pair in
            let name = KrakenPairNames.requestName(pair)
            let (base, quote) = (KrakenPairNames.assetCode(pair.base), KrakenPairNames.assetCode(pair.quote))
            return #""\#(name)":{"altname":"\#(name)","wsname":"\#(base)/\#(quote)","aclass_base":"currency","base":"\#(base)","aclass_quote":"currency","quote":"\#(quote)","lot":"unit","pair_decimals":7,"lot_decimals":8,"lot_multiplier":1,"fee_volume_currency":"ZUSD","ordermin":"1","status":"online"}"#
        }
        return #"{"error":[],"result":{"# + rows.joined(separator: ",") + "}}"
    }

    static let path = "/0/public/Ticker"

    static func body(_ rows: [(name: String, row: WireRow)]) -> String {
        #"{"error":[],"result":{"# + rows.map { "\"\($0.name)\":" + ticker($0.row) }.joined(separator: ",") + "}}"
    }

    /// Kraken's arrays: `a` = [ask, whole-lot volume, lot volume], `b` likewise, `c` = [last, lot volume];
    /// prices are strings with the pair's own number of decimals.
    static func ticker(_ m: WireRow) -> String {
        let t = { (text: String) in text.quoted }
        return "{\"a\":[\(t(m.ask)),\"1\",\"1.000\"],\"b\":[\(t(m.bid)),\"2\",\"2.000\"],\"c\":[\(t(m.last)),\(t(m.lastQty))],"
            + "\"v\":[\(t(m.volume)),\(t(m.volume))],\"p\":[\(t(m.last)),\(t(m.last))],\"t\":[25646,28278],"
            + "\"l\":[\(t(m.low)),\(t(m.low))],\"h\":[\(t(m.high)),\(t(m.high))],\"o\":\(t(m.open))}"
    }

    static func frame(_ row: WireRow, _ symbol: String, _ sequence: Int, _ millis: Int64) -> String {
        let (p, b, a) = (row.last, row.bid, row.ask)
        return #"{"channel":"ticker","type":"update","data":[{"symbol":"\#(symbol)","bid":\#(b),"bid_qty":0.5,"ask":\#(a),"ask_qty":0.5,"last":\#(p),"volume":10.5,"vwap":\#(p),"low":\#(b),"high":\#(a),"change":0.1,"change_pct":0.01}]}"#
    }

    static let times = #""time_in":"2026-11-23T10:00:00.000000Z","time_out":"2026-11-23T10:00:00.000001Z""#

    /// `{"method":"subscribe","params":{"channel":"ticker","symbol":[…],"event_trigger":"bbo",…},"req_id":N}` → one
    /// `{"method":"subscribe","result":{…,"symbol":…},"success":true,…}` per symbol; a refused symbol gets
    /// `{"error":…,"method":"subscribe","success":false,"symbol":…}`.
    static func persona(_ text: String, _ knobs: PersonaKnobs) -> [WireReply] {
        guard let request = WireJSON.object(text), let method = request["method"] as? String else {
            return [.text(#"{"error":"Malformed request","method":"","success":false,"# + times + "}")]
        }
        let requestID = request["req_id"] as? Int ?? 0
        if method == "ping" {
            return knobs.answerPings ? [.text("{\"method\":\"pong\",\"req_id\":\(requestID),\(times)}")] : []
        }
        // `ticker` with `event_trigger: bbo`, or (v3 depth) `book` at one of Kraken's depths.
        let params = request["params"] as? [String: Any] ?? [:]
        // A book's resync unsubscribes it first: one answer per symbol.
        if method == "unsubscribe", params["channel"] as? String == "book", let symbols = params["symbol"] as? [String] {
            return symbols.map { symbol in
                .text("{\"method\":\"unsubscribe\",\"result\":{\"channel\":\"book\",\"depth\":\(params["depth"] as? Int ?? 10),\"symbol\":\"\(symbol)\"},\"success\":true,\(times),\"req_id\":\(requestID)}")
            }
        }
        let ticker = params["channel"] as? String == "ticker" && params["event_trigger"] as? String == "bbo"
        let depth = params["depth"] as? Int ?? 10
        let book = params["channel"] as? String == "book" && [10, 25, 100, 500, 1000].contains(depth)
        guard method == "subscribe", ticker || book, let symbols = params["symbol"] as? [String], !symbols.isEmpty,
              symbols.allSatisfy({ WireJSON.matches($0, #"^[A-Z0-9]+/[A-Z0-9]+$"#) })
        else {
            return [.text("{\"error\":\"Invalid request\",\"method\":\"subscribe\",\"req_id\":\(requestID),\"success\":false,\(times)}")]
        }
        let result = ticker ? "\"channel\":\"ticker\",\"event_trigger\":\"bbo\"" : "\"channel\":\"book\",\"depth\":\(depth)"
        return symbols.enumerated().compactMap { position, symbol -> WireReply? in
            let ack = "{\"method\":\"subscribe\",\"result\":{\(result),\"snapshot\":true,\"symbol\":\"\(symbol)\"},\"success\":true,\(times),\"req_id\":\(requestID)}"
            func refusal(_ error: String) -> WireReply {
                .text("{\"error\":\"\(error)\",\"method\":\"subscribe\",\"req_id\":\(requestID),\"success\":false,\"symbol\":\"\(symbol)\",\(times)}")
            }
            if knobs.refused.contains(symbol) { return refusal("Currency pair not supported \(symbol)") }
            switch knobs.mode {
            case .ack: return .text(ack)
            case .partial: return position == 0 ? .text(ack) : nil
            case .reject: return refusal("Exceeded msg rate")
            case .silent: return nil
            }
        }
    }
}
