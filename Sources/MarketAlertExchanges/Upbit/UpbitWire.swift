import Foundation
import MarketAlertCore

/// Upbit as a peer: `/v1/ticker?markets=…` (`404 Code not found` when one is not listed) and the listing
/// `/v1/market/all` the source reads after such a refusal; binary `SIMPLE` ticker frames and a snapshot
/// instead of an ack.
package enum UpbitWire {
    package static let kit = ExchangeWireKit(
        homeQuote: "KRW", recordedQuote: "KRW",
        rest: RESTPeer(
            paths: [tickerPath, listingPath], shapes: [RecordedShape(fixture: "upbit/ticker-KRW-BTC-ETH.json", text: recordedRow)],
            body: { rows, _ in "[" + rows.map(row).joined(separator: ",") + "]" },
            answer: answer,
            startsPoll: { request, _ in request.path == tickerPath ? true : request.path == listingPath ? false : nil }),
        stream: StreamPeer(
            path: "/websocket/v1", binary: true,
            tickerFrame: { row, code, _, millis in #"{"ty":"ticker","cd":"\#(code)","tp":\#(row.last),"tms":\#(millis),"st":"REALTIME"}"# },
            persona: persona(binary: true, format: "SIMPLE")),
        fixtures: WireFixtures(rest: "upbit", stream: "streams/upbit"))

    static let tickerPath = "/v1/ticker"
    static let listingPath = "/v1/market/all"

    /// The KRW-BTC row of `upbit/ticker-KRW-BTC-ETH.json`.
    static let recordedRow = #"{"market":"KRW-BTC","trade_date":"20250730","trade_time":"170315","trade_date_kst":"20250731","trade_time_kst":"020315","trade_timestamp":1753894995076,"opening_price":163248000.00000000,"high_price":163708000.00000000,"low_price":162248000.00000000,"trade_price":162876000.00000000,"prev_closing_price":163158000.00000000,"change":"FALL","change_price":282000.00000000,"change_rate":0.0017283860,"signed_change_price":-282000.00000000,"signed_change_rate":-0.0017283860,"trade_volume":0.02543652,"acc_trade_price":137728155832.9616000000000000,"acc_trade_price_24h":167740032580.71786000,"acc_trade_volume":844.94369319,"acc_trade_volume_24h":1029.27369910,"highest_52_week_price":166800000.00000000,"highest_52_week_date":"2025-07-14","lowest_52_week_price":72100000.00000000,"lowest_52_week_date":"2024-08-05","timestamp":1753894995113}"#
    static let template = FlatJSONTemplate(constant: recordedRow)

    /// Upbit sends JSON numbers with eight decimals (`163248000.00000000`).
    static func row(_ m: WireRow) -> String {
        template.render([
            "market": "\(m.quote)-\(m.base)".quoted, "trade_timestamp": String(m.timeMillis), "timestamp": String(m.timeMillis),
            "opening_price": m.open, "high_price": m.high, "low_price": m.low, "trade_price": m.last, "prev_closing_price": m.open,
            "acc_trade_volume_24h": m.volume, "acc_trade_price_24h": m.quoteVolume,
        ])
    }

    static func answer(_ request: WireRequest, _ book: WirePeerBook) -> WireResponse? {
        switch request.path {
        case tickerPath:
            let codes = request.listValue("markets")
            let rows = codes.compactMap(book.row)
            guard !codes.isEmpty, rows.count == codes.count else {
                return .json(#"{"error":{"name":"404","message":"Code not found"}}"#, status: 404)
            }
            return .json("[" + rows.map(row).joined(separator: ",") + "]")
        case listingPath:
            let listed = (book.live().map(\.id) + book.others.map { "\($0.quote)-\($0.base)" }).sorted()
            return .json("[" + listed.map { #"{"market":"\#($0)","korean_name":"\#($0)","english_name":"\#($0)"}"# }.joined(separator: ",") + "]")
        default:
            return nil
        }
    }

    /// Upbit and Bithumb: `[{"ticket":…},{"type":"ticker","codes":[…]},{"type":"orderbook","codes":["KRW-BTC.1",…]},{"format":…}]`.
    /// No ack: like the real servers, the answer is a snapshot of the first requested ticker (binary for
    /// Upbit); errors are `{"error":{"name":…,"message":…}}`. Text `PING` → `{"status":"UP"}`.
    package static func persona(binary: Bool, format: String) -> @Sendable (String, PersonaKnobs) -> [WireReply] {
        { text, knobs in
            func reply(_ text: String) -> WireReply { binary ? .binary(Data(text.utf8)) : .text(text) }
            if text == "PING" { return knobs.answerPings ? [reply(#"{"status":"UP"}"#)] : [] }
            guard let request = WireJSON.array(text), let objects = request as? [[String: Any]], objects.first?["ticket"] is String else {
                return [reply(#"{"error":{"name":"NO_TICKET","message":"ticket이 없습니다."}}"#)]
            }
            let ticker = objects.first { $0["type"] as? String == "ticker" }?["codes"] as? [String] ?? []
            let books = objects.first { $0["type"] as? String == "orderbook" }?["codes"] as? [String] ?? []
            // Orderbook codes carry the unit count asked for (`KRW-BTC.1`; v3 books `.5`, `.15` or `.30`), one for all;
            // a request may also ask for tickers alone (no `orderbook` object).
            let units = books.first.flatMap { $0.split(separator: ".").last.map(String.init) } ?? "1"
            guard !ticker.isEmpty, ["1", "5", "15", "30"].contains(units), books.isEmpty || books == ticker.map({ "\($0).\(units)" }),
                  objects.last?["format"] as? String == format,
                  ticker.allSatisfy({ WireJSON.matches($0, #"^[A-Z]+-[A-Z0-9]+$"#) })
            else { return [reply(#"{"error":{"name":"WRONG_FORMAT","message":"요청 형식이 올바르지 않습니다."}}"#)] }
            switch knobs.mode {
            case .ack, .partial:
                let snapshot = format == "SIMPLE"
                    ? "{\"ty\":\"ticker\",\"cd\":\"\(ticker[0])\",\"tp\":100.0,\"tms\":1618678262712,\"st\":\"SNAPSHOT\"}"
                    : "{\"type\":\"ticker\",\"code\":\"\(ticker[0])\",\"trade_price\":100,\"timestamp\":1725927377287,\"stream_type\":\"SNAPSHOT\"}"
                return [reply(snapshot)]
            case .reject:
                return [reply(#"{"error":{"name":"INVALID_PARAM","message":"지원하지 않는 값입니다."}}"#)]
            case .silent:
                return []
            }
        }
    }
}
