import Foundation
import MarketAlertCore

/// Binance as a peer: `/api/v3/ticker/24hr` (filtered by `symbols`, or the whole list), `24hrTicker` frames,
/// and the `SUBSCRIBE`/`result` exchange of its stream.
package enum BinanceWire {
    package static let kit = ExchangeWireKit(
        homeQuote: "USDT", recordedQuote: "USDT",
        rest: RESTPeer(
            paths: [path], shapes: [RecordedShape(fixture: "binance/ticker-24hr-all-20240310.json", text: recordedRow)],
            body: { rows, _ in "[" + rows.map(row).joined(separator: ",") + "]" },
            answer: answer,
            startsPoll: { request, _ in request.path == path ? request.query?.contains("symbols=") == true : nil }),
        stream: StreamPeer(path: "/ws", tickerFrame: frame, persona: persona),
        fixtures: WireFixtures(rest: "binance", stream: "streams/binance"))

    static let path = "/api/v3/ticker/24hr"

    /// The BTCUSDT row of `binance/ticker-24hr-all-20240310.json`.
    static let recordedRow = #"{"symbol":"BTCUSDT","priceChange":"854.02000000","priceChangePercent":"1.253","weightedAvgPrice":"68402.99304666","prevClosePrice":"68155.98000000","lastPrice":"69010.01000000","lastQty":"0.00144000","bidPrice":"69010.00000000","bidQty":"1.40201000","askPrice":"69010.01000000","askQty":"6.97255000","openPrice":"68155.99000000","highPrice":"69216.00000000","lowPrice":"67933.93000000","volume":"22470.37258000","quoteVolume":"1537040739.34553140","openTime":1709952420176,"closeTime":1710038820176,"firstId":3468995915,"lastId":3470456454,"count":1460540}"#
    static let template = FlatJSONTemplate(constant: recordedRow)

    static func row(_ m: WireRow) -> String {
        template.render([
            "symbol": (m.base + m.quote).quoted, "lastPrice": m.last.quoted, "bidPrice": m.bid.quoted, "askPrice": m.ask.quoted,
            "openPrice": m.open.quoted, "highPrice": m.high.quoted, "lowPrice": m.low.quoted, "prevClosePrice": m.open.quoted,
            "volume": m.volume.quoted, "quoteVolume": m.quoteVolume.quoted,
            "openTime": String(m.timeMillis - 86_400_000), "closeTime": String(m.timeMillis),
        ])
    }

    /// The filtered request of the poller, or the whole list (its fallback after `-1121`, which a filtered
    /// request naming an unlisted symbol gets).
    static func answer(_ request: WireRequest, _ book: WirePeerBook) -> WireResponse? {
        guard request.path == path else { return nil }
        guard let symbols = request.queryValue("symbols") else {
            return weighted("[" + (book.live().map(\.row) + book.others).map(row).joined(separator: ",") + "]")
        }
        let requested = symbols.filter { $0.isLetter || $0.isNumber || $0 == "," }.split(separator: ",").map(String.init)
        let rows = requested.compactMap(book.row)
        guard rows.count == requested.count else {
            return weighted(#"{"code":-1121,"msg":"Invalid symbol."}"#, status: 400)
        }
        return weighted("[" + rows.map(row).joined(separator: ",") + "]")
    }

    private static func weighted(_ body: String, status: Int = 200) -> WireResponse {
        WireResponse(status: status, headers: [("Content-Type", "application/json"), ("X-MBX-USED-WEIGHT-1M", "42")], body: body)
    }

    static func frame(_ row: WireRow, _ symbol: String, _ sequence: Int, _ millis: Int64) -> String {
        #"{"e":"24hrTicker","E":\#(millis),"s":"\#(symbol)","c":"\#(row.last)","b":"\#(row.bid)","B":"1.5","a":"\#(row.ask)","A":"2.5"}"#
    }

    /// `{"method":"SUBSCRIBE","params":["btcusdt@bookTicker",…],"id":N}` → `{"result":null,"id":N}`.
    static func persona(_ text: String, _ knobs: PersonaKnobs) -> [WireReply] {
        guard let request = WireJSON.object(text), let id = request["id"] as? Int else {
            return [.text(#"{"error":{"code":3,"msg":"Invalid JSON: expected an object with an id"},"id":null}"#)]
        }
        guard request["method"] as? String == "SUBSCRIBE", let params = request["params"] as? [String], !params.isEmpty,
              params.allSatisfy({ WireJSON.matches($0, #"^[a-z0-9]+@(bookTicker|ticker|depth@100ms)$"#) })
        else {
            return [.text("{\"error\":{\"code\":2,\"msg\":\"Invalid request: unknown method or stream name\"},\"id\":\(id)}")]
        }
        switch knobs.mode {
        case .ack, .partial: return [.text("{\"result\":null,\"id\":\(id)}")]
        case .reject: return [.text("{\"error\":{\"code\":2,\"msg\":\"Invalid request: request limit exceeded\"},\"id\":\(id)}")]
        case .silent: return []
        }
    }
}
