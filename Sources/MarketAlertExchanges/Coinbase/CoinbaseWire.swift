import Foundation
import MarketAlertCore

/// Coinbase Exchange as a peer: `/products/<id>/ticker`, one product per request (`NotFound` for one it
/// does not list), `ticker` frames and one `subscriptions` answer per subscribe.
package enum CoinbaseWire {
    package static let kit = ExchangeWireKit(
        homeQuote: "USDT", recordedQuote: "USD",
        rest: RESTPeer(
            paths: [prefix + "*"], shapes: [RecordedShape(fixture: "coinbase/products-BTC-USDT-ticker-ccxt.json", text: recorded)],
            body: { rows, _ in rows.first.map(ticker) ?? "" },
            answer: { request, book in
                guard let product = product(request.path) else { return nil }
                guard let row = book.row(product) else { return .json(#"{"message":"NotFound"}"#, status: 404) }
                return .json(ticker(row))
            },
            // A poll asks for every product in turn; the first live one begins it.
            startsPoll: { request, book in
                guard let product = product(request.path) else { return nil }
                return product == book.live().first?.id
            }),
        stream: StreamPeer(path: "/", tickerFrame: frame, persona: persona),
        fixtures: WireFixtures(rest: "coinbase", stream: "streams/coinbase"))

    static let prefix = "/products/"

    /// `/products/BTC-USDT/ticker` → `BTC-USDT`.
    static func product(_ path: String) -> String? {
        guard path.hasPrefix(prefix), path.hasSuffix("/ticker") else { return nil }
        let id = path.dropFirst(prefix.count).dropLast("/ticker".count)
        return id.isEmpty || id.contains("/") ? nil : String(id)
    }

    /// `coinbase/products-BTC-USDT-ticker-ccxt.json`.
    static let recorded = #"{"ask":"73369.19","bid":"73360.34","volume":"1207.50668151","trade_id":"18502105","price":"73367.8","size":"0.00730812","time":"2024-03-13T11:10:41.270099Z","rfq_volume":"7.669923"}"#
    static let template = FlatJSONTemplate(constant: recorded)

    /// `time` is ISO 8601 with microseconds.
    static func ticker(_ m: WireRow) -> String {
        let t = DecimalFormat.trimmed
        let time = DecimalFormat.isoMillis(m.timeMillis).replacingOccurrences(of: "Z", with: "000Z")
        return template.render([
            "ask": t(m.ask).quoted, "bid": t(m.bid).quoted, "volume": t(m.volume).quoted, "price": t(m.last).quoted,
            "size": t(m.lastQty).quoted, "time": time.quoted,
        ])
    }

    static func frame(_ row: WireRow, _ product: String, _ sequence: Int, _ millis: Int64) -> String {
        let time = DecimalFormat.isoMillis(millis)
        return #"{"type":"ticker","sequence":\#(sequence),"product_id":"\#(product)","price":"\#(row.last)","best_bid":"\#(row.bid)","best_ask":"\#(row.ask)","side":"buy","time":"\#(time)","trade_id":\#(sequence),"last_size":"0.01"}"#
    }

    /// `{"type":"subscribe","product_ids":[…],"channels":["ticker","heartbeat"]}` → one `{"type":"subscriptions",…}`
    /// (a partial answer lists only the first product); refusal: `{"type":"error","message":…,"reason":…}`.
    static func persona(_ text: String, _ knobs: PersonaKnobs) -> [WireReply] {
        guard let request = WireJSON.object(text), request["type"] as? String == "subscribe", let products = request["product_ids"] as? [String],
              !products.isEmpty, Set(request["channels"] as? [String] ?? []) == ["ticker", "heartbeat"],
              products.allSatisfy({ WireJSON.matches($0, #"^[A-Z0-9]+-[A-Z0-9]+$"#) })
        else { return [.text(#"{"type":"error","message":"Failed to subscribe","reason":"Type has to be either subscribe or unsubscribe"}"#)] }
        func answer(_ listed: [String]) -> WireReply {
            let ids = listed.map { "\"\($0)\"" }.joined(separator: ",")
            return .text("{\"type\":\"subscriptions\",\"channels\":[{\"name\":\"ticker\",\"product_ids\":[\(ids)]},{\"name\":\"heartbeat\",\"product_ids\":[\(ids)]}]}")
        }
        func refusal(_ product: String) -> WireReply {
            .text("{\"type\":\"error\",\"message\":\"Failed to subscribe\",\"reason\":\"\(product) is not a valid product\"}")
        }
        if let refused = products.first(where: knobs.refused.contains) { return [refusal(refused)] }
        switch knobs.mode {
        case .ack: return [answer(products.reversed())]
        case .partial: return [answer([products[0]])]
        case .reject: return [refusal(products[0])]
        case .silent: return []
        }
    }
}
