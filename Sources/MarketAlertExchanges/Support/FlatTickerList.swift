import Foundation
import MarketAlertCore
import MarketAlertKit

/// The quick read of a ticker list whose rows are flat objects (Binance, Bybit, OKX, Bitget, Upbit, Bithumb):
/// one pass over the bytes with `JSONBytes`, no `Codable`, no copy of the kept rows. A polling daemon reads
/// these lists every second, and pruning then decoding the watched rows with `JSONDecoder` was a third of its
/// CPU (perf, 8 exchanges × 50 assets).
///
/// It judges only the ordinary answer: the success code where the list sits in an envelope, a list at
/// `path` of objects that each name their market in a plain string, and for the watched rows prices that
/// are usable (or null) and times that are positive integers. Anything else (an error code, a row that is
/// not an object or lacks its market, a market spelled with escapes, a repeated field, a price sent but
/// unusable, a malformed byte) makes `collect` return false and leave the collector as it was; the caller
/// then reads the body the careful way (prune, then `Decodable`), which names what was wrong. So the two
/// paths agree on every answer this one accepts, and the careful one alone speaks for the rest.
package struct FlatTickerList: Sendable {
    /// Object members from the root to the list; empty when the root is the list.
    package var path: [StaticString]
    /// A member of the root object that must hold this code (a string or a number, compared as sent).
    package var success: (field: StaticString, code: StaticString)?
    /// The row member naming the market (`symbol`, `instId`, `market`).
    package var market: StaticString
    /// Row members for the last price, the first one present (not null) wins.
    package var last: [StaticString]
    package var bid: StaticString?
    package var ask: StaticString?
    /// Row members for the quote time in milliseconds, the first one present wins.
    package var time: [StaticString] = []
    /// A member of the root object with the time in milliseconds for every row (Bybit's `time`).
    package var rootTime: StaticString?

    /// Adds the watched rows of `body` to `collector` and sets its `listCount`; false (the collector
    /// untouched) when the answer is not one this reader judges.
    package func collect(_ body: Data, into collector: inout QuoteCollector) -> Bool {
        body.withUnsafeBytes { raw in
            var reading = Reading(json: JSONBytes(raw), list: self, collector: collector)
            guard reading.run() else { return false }
            collector = reading.collector
            return true
        }
    }
}

extension FlatTickerList {
    /// One row's values, by slot: 0–1 last, 2 bid, 3 ask, 4–5 time.
    struct Slots {
        var values: (JSONBytes.Value?, JSONBytes.Value?, JSONBytes.Value?, JSONBytes.Value?, JSONBytes.Value?, JSONBytes.Value?)
            = (nil, nil, nil, nil, nil, nil)

        subscript(slot: Int) -> JSONBytes.Value? {
            get {
                switch slot {
                case 0: values.0
                case 1: values.1
                case 2: values.2
                case 3: values.3
                case 4: values.4
                default: values.5
                }
            }
            set {
                switch slot {
                case 0: values.0 = newValue
                case 1: values.1 = newValue
                case 2: values.2 = newValue
                case 3: values.3 = newValue
                case 4: values.4 = newValue
                default: values.5 = newValue
                }
            }
        }
    }

    struct Row {
        var market: String
        var last: Price?
        var bid: Price?
        var ask: Price?
        var millis: Int64?
    }

    /// The fields a row is read for, each with its slot.
    var rowFields: [(name: StaticString, slot: Int)] {
        var fields: [(name: StaticString, slot: Int)] = []
        for (index, name) in last.prefix(2).enumerated() { fields.append((name: name, slot: index)) }
        if let bid { fields.append((name: bid, slot: 2)) }
        if let ask { fields.append((name: ask, slot: 3)) }
        for (index, name) in time.prefix(2).enumerated() { fields.append((name: name, slot: 4 + index)) }
        return fields
    }
}
