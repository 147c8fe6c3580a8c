import Foundation
import MarketAlertCore

/// Bithumb as a peer: `/public/ticker/ALL_<QUOTE>` (a map of every coin of that quote, no bid or ask;
/// `5500 Invalid Parameter` for a quote it does not trade), `DEFAULT` ticker frames and Upbit's
/// subscription format.
package enum BithumbWire {
    package static let kit = ExchangeWireKit(
        homeQuote: "KRW", recordedQuote: "KRW",
        rest: RESTPeer(
            paths: [pathPrefix + "*"],
            shapes: [RecordedShape(fixture: "bithumb/public-ticker-ALL_KRW-trimmed-20221005.json", text: recordedCoin)],
            body: body,
            answer: { request, book in
                guard request.path.hasPrefix(pathPrefix) else { return nil }
                let quote = String(request.path.dropFirst(pathPrefix.count))
                let rows = (book.live().map(\.row) + book.others).filter { $0.quote == quote }
                guard !rows.isEmpty else { return .json(#"{"status":"5500","message":"Invalid Parameter"}"#) }
                return .json(body(rows, request.nowMillis))
            }),
        stream: StreamPeer(
            path: "/websocket/v1",
            tickerFrame: { row, code, _, millis in
                #"{"type":"ticker","code":"\#(code)","trade_price":\#(row.last),"timestamp":\#(millis),"stream_type":"REALTIME"}"#
            },
            persona: UpbitWire.persona(binary: false, format: "DEFAULT")),
        fixtures: WireFixtures(rest: "bithumb", stream: "streams/bithumb"))

    static let pathPrefix = "/public/ticker/ALL_"

    /// The BTC entry of `bithumb/public-ticker-ALL_KRW-trimmed-20221005.json`.
    static let recordedCoin = #"{"opening_price":"28476000","closing_price":"28681000","min_price":"28471000","max_price":"28821000","units_traded":"105.39686661","acc_trade_value":"3013833977.8601","prev_closing_price":"28477000","units_traded_24H":"2007.8611323","acc_trade_value_24H":"57648234983.3066","fluctate_24H":"119000","fluctate_rate_24H":"0.42"}"#
    static let template = FlatJSONTemplate(constant: recordedCoin)

    /// The `ALL_<quote>` map of `rows` (all of one quote).
    static func body(_ rows: [WireRow], _ millis: Int64) -> String {
        let coins = rows.map { "\"\($0.base)\":" + coin($0) }
        return #"{"status":"0000","data":{"# + coins.joined(separator: ",") + #","date":"\#(millis)"}}"#
    }

    /// One coin of the map (strings without decimals for KRW).
    static func coin(_ m: WireRow) -> String {
        let t = DecimalFormat.trimmed
        return template.render([
            "opening_price": t(m.open).quoted, "closing_price": t(m.last).quoted, "min_price": t(m.low).quoted,
            "max_price": t(m.high).quoted, "units_traded_24H": t(m.volume).quoted, "acc_trade_value_24H": t(m.quoteVolume).quoted,
            "prev_closing_price": t(m.open).quoted,
        ])
    }
}
