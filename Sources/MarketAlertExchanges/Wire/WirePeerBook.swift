import Foundation
import MarketAlertCore

/// One market's ticker values as decimal text, from which every exchange's row shape is rendered.
package struct WireRow: Sendable, Equatable {
    package var base: String
    package var quote: String
    package var last: String
    package var bid: String
    package var ask: String
    package var open: String
    package var high: String
    package var low: String
    package var volume: String
    package var quoteVolume: String
    package var bidQty = "1.5"
    package var askQty = "2.25"
    package var lastQty = "0.01"
    package var timeMillis: Int64

    package init(
        base: String, quote: String, last: String, bid: String, ask: String, open: String, high: String, low: String,
        volume: String, quoteVolume: String, timeMillis: Int64
    ) {
        self.base = base
        self.quote = quote
        self.last = last
        self.bid = bid
        self.ask = ask
        self.open = open
        self.high = high
        self.low = low
        self.volume = volume
        self.quoteVolume = quoteVolume
        self.timeMillis = timeMillis
    }

    package var pair: MarketPair { MarketPair(base: base, quote: quote) }
}

/// What a peer exchange lists and prices, for answering requests.
package struct WirePeerBook: Sendable {
    /// The markets it prices live, by the exchange's market id, in order; fresh values on every call.
    package var live: @Sendable () -> [(id: String, row: WireRow)]
    /// The live row of one market id, or the row of one of `others`; nil: the exchange does not list it.
    package var row: @Sendable (_ marketID: String) -> WireRow?
    /// Further listed markets, unwatched, that bulk answers carry after the live ones.
    package var others: [WireRow]

    package init(
        live: @escaping @Sendable () -> [(id: String, row: WireRow)], row: @escaping @Sendable (String) -> WireRow?,
        others: [WireRow] = []
    ) {
        self.live = live
        self.row = row
        self.others = others
    }
}

/// One HTTP request as a peer sees it.
package struct WireRequest: Sendable {
    package var path: String
    package var query: String?
    /// The exchange's clock, for the times in its answers.
    package var nowMillis: Int64

    package init(path: String, query: String? = nil, nowMillis: Int64) {
        self.path = path
        self.query = query
        self.nowMillis = nowMillis
    }

    /// The percent-decoded value of `name` in the query.
    package func queryValue(_ name: String) -> String? {
        guard let query, let item = query.split(separator: "&").first(where: { $0.hasPrefix("\(name)=") }) else { return nil }
        return String(item.dropFirst(name.count + 1)).removingPercentEncoding
    }

    /// The comma-separated values of `name` (empty when absent).
    package func listValue(_ name: String) -> [String] {
        (queryValue(name) ?? "").split(separator: ",").map(String.init)
    }
}

/// One HTTP answer of a peer.
package struct WireResponse: Sendable {
    package var status: Int
    package var headers: [(String, String)]
    package var body: String

    package init(status: Int = 200, headers: [(String, String)] = [], body: String) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON answer.
    package static func json(_ body: String, status: Int = 200) -> WireResponse {
        WireResponse(status: status, headers: [("Content-Type", "application/json")], body: body)
    }
}

/// Reading a client's messages in a persona.
package enum WireJSON {
    /// A JSON object (nil for anything else).
    package static func object(_ text: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
    }

    /// A JSON array (nil for anything else).
    package static func array(_ text: String) -> [Any]? {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [Any]
    }

    /// Whether all of `text` matches the regular expression `pattern`.
    package static func matches(_ text: String, _ pattern: String) -> Bool {
        text.range(of: pattern, options: .regularExpression) != nil
    }
}
