import Foundation
import MarketAlertCore
import MarketAlertKit

extension FlatTickerList {
    /// One pass over one answer: walks to the list (checking the success code and reading a root time on
    /// the way), reads each row's market and, for a watched one, its prices and time. Any surprise sets
    /// `refused` and stops the walk; `run` then answers false.
    struct Reading {
        let json: JSONBytes
        let list: FlatTickerList
        var collector: QuoteCollector
        private let fields: [(name: StaticString, slot: Int)]
        private var rows: [Row] = []
        private var count = 0
        private var listFound = false
        private var successFound = false
        private var rootMillis: Int64?
        private var refused = false

        init(json: JSONBytes, list: FlatTickerList, collector: QuoteCollector) {
            self.json = json
            self.list = list
            self.collector = collector
            fields = list.rowFields
        }

        mutating func run() -> Bool {
            guard let root = json.root else { return false }
            let end = list.path.isEmpty ? readList(at: root, depth: 0) : descend(at: root, level: 0)
            guard let end, !refused, listFound, list.success == nil || successFound,
                  json.skipSpace(end) == json.bytes.count
            else { return false }
            collector.listCount = count
            for row in rows {
                let millis = row.millis ?? rootMillis
                collector.add(
                    market: row.market, last: row.last, bid: row.bid, ask: row.ask,
                    exchangeTime: millis.map { Date(timeIntervalSince1970: Double($0) / 1000) })
            }
            return true
        }

        /// Walks the object at `index` (the root, or a member on `path` at `level`) to the list.
        private mutating func descend(at index: Int, level: Int) -> Int? {
            let json = json
            let list = list
            return json.walkMembers(ofObjectAt: index, depth: level) { keyStart, keyEnd, value in
                if level == 0, let success = list.success, json.matches(keyStart, keyEnd, success.field) {
                    guard !successFound, value.kind == .string || value.kind == .number,
                          json.matches(value.start, value.end, success.code)
                    else { return refuse() }
                    successFound = true
                    return .next
                }
                if level == 0, let rootTime = list.rootTime, json.matches(keyStart, keyEnd, rootTime) {
                    if value.kind == .literal, json.matches(value.start, value.end, "null") { return .next }
                    guard rootMillis == nil, let millis = json.integer(value), millis > 0 else { return refuse() }
                    rootMillis = millis
                    return .next
                }
                guard json.matches(keyStart, keyEnd, list.path[level]) else { return .next }
                if level + 1 == list.path.count {
                    guard value.kind == .array, !listFound else { return refuse() }
                    listFound = true
                    return .walked(readList(at: value.start, depth: level + 1))
                }
                guard value.kind == .object else { return refuse() }
                return .walked(descend(at: value.start, level: level + 1))
            }
        }

        /// Reads every row of the array at `index`.
        private mutating func readList(at index: Int, depth: Int) -> Int? {
            guard index < json.bytes.count, json.bytes[index] == UInt8(ascii: "[") else {
                refused = true
                return nil
            }
            listFound = true
            let json = json
            return json.walkElements(ofArrayAt: index, depth: depth) { element in
                count += 1
                guard element.kind == .object else { return refuse() }
                return .walked(readRow(at: element.start, depth: depth + 1))
            }
        }

        /// Reads one row; keeps it when its market is watched. A row whose market (usually its first or
        /// second member) is not watched is skipped from there by the structural scan, without handing each
        /// remaining member to the field matching: most rows of a bulk list are such rows.
        private mutating func readRow(at index: Int, depth: Int) -> Int? {
            let json = json
            let fields = fields
            let collector = collector
            var market: String?
            var slots = Slots()
            var surprise = false
            var unwatched = false
            let end = json.walkMembers(ofObjectAt: index, depth: depth) { keyStart, keyEnd, value in
                if json.matches(keyStart, keyEnd, list.market) {
                    let text = json.slice(value)
                    guard market == nil, value.kind == .string, !text.contains(UInt8(ascii: "\\")) else {
                        surprise = true
                        return .stop
                    }
                    let name = String(decoding: text, as: UTF8.self)
                    guard collector.isWatched(name) else {
                        unwatched = true
                        return .stop
                    }
                    market = name
                    return .next
                }
                for field in fields where json.matches(keyStart, keyEnd, field.name) {
                    if slots[field.slot] != nil { surprise = true }
                    slots[field.slot] = value
                }
                return .next
            }
            if unwatched, !surprise, let skipped = json.value(at: index, depth: depth)?.1 { return skipped }
            guard let end, !surprise, let market, let row = row(market, slots) else {
                refused = true
                return nil
            }
            rows.append(row)
            return end
        }

        /// The row's values, or nil when one present is unusable (the careful path then names it).
        private func row(_ market: String, _ slots: Slots) -> Row? {
            var row = Row(market: market)
            for slot in 0..<6 {
                guard let value = slots[slot], !isNull(value) else { continue }
                if slot >= 4 {
                    guard let millis = json.integer(value), millis > 0 else { return nil }
                    if row.millis == nil { row.millis = millis }
                    continue
                }
                guard let price = json.price(value) else { return nil }
                switch slot {
                case 0, 1: if row.last == nil { row.last = price }
                case 2: row.bid = price
                default: row.ask = price
                }
            }
            return row
        }

        private func isNull(_ value: JSONBytes.Value) -> Bool {
            value.kind == .literal && json.matches(value.start, value.end, "null")
        }

        private mutating func refuse() -> JSONBytes.Step {
            refused = true
            return .stop
        }
    }
}
