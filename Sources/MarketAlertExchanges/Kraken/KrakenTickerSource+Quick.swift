import Foundation
import MarketAlertCore
import MarketAlertKit

extension KrakenTickerSource {
    /// One ticker of an answer, by Kraken's key: `c[0]` last, `b[0]` bid, `a[0]` ask.
    package struct Row {
        package var key: String
        package var last: WirePrice?
        package var bid: WirePrice?
        package var ask: WirePrice?
    }

    /// The quick read of an ordinary `/0/public/Ticker` answer, in one pass over the bytes (`JSONBytes`, no
    /// `Codable`): `error` absent or empty, `result` an object of tickers keyed by plain strings, and in each
    /// ticker `a`, `b` and `c` arrays of strings or numbers whose first is a usable price. Nil for anything
    /// else (an error, a repeated key, a null or unusable price, a malformed byte), and `collect` decodes the
    /// body with `Envelope`, which names what was wrong; on the answers this takes, both read the same rows.
    package static func quickRows(_ body: Data) -> [Row]? {
        body.withUnsafeBytes { raw -> [Row]? in
            let json = JSONBytes(raw)
            guard let root = json.root else { return nil }
            var rows: [Row]?
            var refused = false
            let end = json.walkMembers(ofObjectAt: root) { keyStart, keyEnd, value in
                if json.matches(keyStart, keyEnd, "error") {
                    // Only an empty list: any message is the careful path's to report.
                    guard value.kind == .array, let end = json.walkElements(ofArrayAt: value.start, depth: 1, { _ in .stop }) else {
                        refused = true
                        return .stop
                    }
                    return .walked(end)
                }
                guard json.matches(keyStart, keyEnd, "result") else { return .next }
                guard rows == nil, value.kind == .object else {
                    refused = true
                    return .stop
                }
                var found: [Row] = []
                let end = json.walkMembers(ofObjectAt: value.start, depth: 1) { keyStart, keyEnd, ticker in
                    guard ticker.kind == .object, let key = json.plainString(JSONBytes.Value(start: keyStart, end: keyEnd, kind: .string))
                    else { return .stop }
                    var row = Row(key: key)
                    let end = json.walkMembers(ofObjectAt: ticker.start, depth: 2) { fieldStart, fieldEnd, levels in
                        let isLast = json.matches(fieldStart, fieldEnd, "c")
                        let isBid = json.matches(fieldStart, fieldEnd, "b")
                        guard isLast || isBid || json.matches(fieldStart, fieldEnd, "a") else { return .next }
                        guard levels.kind == .array, let price = firstPrice(json, levels) else { return .stop }
                        if isLast { row.last = price.value } else if isBid { row.bid = price.value } else { row.ask = price.value }
                        return .walked(price.end)
                    }
                    guard end != nil else { return .stop }
                    found.append(row)
                    return .walked(end)
                }
                guard end != nil, Set(found.map(\.key)).count == found.count else {
                    refused = true
                    return .stop
                }
                rows = found
                return .walked(end)
            }
            guard let end, !refused, json.skipSpace(end) == json.bytes.count else { return nil }
            return rows
        }
    }

    /// The first element of a `[price, volume, …]` array as a usable price, every element a string or a
    /// number; the index after the array.
    private static func firstPrice(_ json: JSONBytes, _ levels: JSONBytes.Value) -> (value: WirePrice, end: Int)? {
        var first: Price?
        var count = 0
        var usable = true
        let end = json.walkElements(ofArrayAt: levels.start, depth: 3) { element in
            guard element.kind == .string || element.kind == .number else {
                usable = false
                return .stop
            }
            if count == 0 { first = json.price(element) }
            count += 1
            return .next
        }
        guard let end, usable, let first else { return nil }
        return (WirePrice(first), end)
    }
}
